import { afterAll, expect, it } from 'vitest'
import { killLoop } from '../bench/kill-loop.mjs'
import { tempHomes } from '@svc/test-kit'

/** A few cycles in CI; `pnpm bench` runs 100. */
const CYCLES = Number(process.env.KILL_CYCLES ?? 4)

const homes = tempHomes()
afterAll(homes.release)

// No lock stall: leftAfterStart holds any lock a killed daemon left that the next one kept
// (the first task write would then wait until it is 10 s old); the write time is printed.
it(`keeps every acknowledged write through ${CYCLES} SIGKILLs, with no lock stall and no temp file`, { timeout: 600_000 }, async () => {
  const figures = await killLoop({ dir: await homes.make(), cycles: CYCLES, seed: 7 })
  const slowest = Math.max(...figures.firstWriteMs)
  process.stdout.write(
    `kill loop: ${figures.cycles} SIGKILLs, ${figures.acked} acknowledged of ${figures.attempted} attempted writes, ` +
      `${figures.lost.length} lost; first task write after restart at most ${slowest.toFixed(0)} ms; ` +
      `${figures.leftByKills} locks and temp files left by the kills, ${figures.leftAfterStart.length} after restarts\n`,
  )
  expect(figures.lost).toEqual([])
  expect(figures.leftAfterStart).toEqual([])
  expect(figures.acked).toBeGreaterThan(CYCLES)
})
