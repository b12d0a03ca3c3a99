import { afterAll, expect, it } from 'vitest'
import { remoteFaults, type FaultPlace } from '../bench/remote-faults.mjs'
import { makePlace, placeLabel, tempHomes, type Place } from '@svc/test-kit'

/** A few cycles in CI; `pnpm bench` runs 50. */
const CYCLES = Number(process.env.FAULT_CYCLES ?? 6)

const homes = tempHomes()
let place: Place | undefined
afterAll(async () => {
  await place?.remove()
  await homes.release()
})

it(`loses no work and leaves nothing behind through ${CYCLES} home daemons SIGKILLed mid-step of hook sessions, the hosts ${placeLabel()}`, { timeout: 900_000 }, async () => {
  place = await makePlace()
  const netns = 'name' in place ? { netns: (place as Place & { name: string }).name } : {}
  const figures = await remoteFaults({ dir: await homes.make(), cycles: CYCLES, seed: 11, place: { address: place.address, spawn: ((command: string, args: string[], options: object) => place?.spawn(command, args, options)) as FaultPlace['spawn'], ...netns } })
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
