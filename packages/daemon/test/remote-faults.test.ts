import { afterAll, expect, it } from 'vitest'
import { remoteFaults } from '../bench/remote-faults.mjs'
import { tempHomes } from '@svc/test-kit'

/** A few cycles in CI; `pnpm bench` runs 50. */
const CYCLES = Number(process.env.FAULT_CYCLES ?? 6)

const homes = tempHomes()
afterAll(homes.release)

it(`loses no work and leaves nothing behind through ${CYCLES} home daemons SIGKILLed mid-step of hook sessions`, { timeout: 900_000 }, async () => {
  const figures = await remoteFaults({ dir: await homes.make(), cycles: CYCLES, seed: 11 })
  process.stdout.write(
    `remote faults: ${figures.cycles} cycles (${JSON.stringify(figures.operations)}), ${figures.sessions} sessions, ` +
      `${figures.notes} pieces of work, ${figures.lost.length} lost, ${figures.leftovers.length} leftovers, ${figures.unsettled.length} unsettled, ${figures.hostKeyChanges} host key changes\n`,
  )
  expect(figures.lost).toEqual([])
  expect(figures.leftovers).toEqual([])
  expect(figures.unsettled).toEqual([])
  expect(figures.wrongKeyAccepted).toEqual([])
  expect(figures.notes).toBeGreaterThan(0)
})
