import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { tempDir } from './harness.js'
import { GiveUp, waitFor } from './wait.js'

it('asks again when the probe throws, so a file still being written is "not yet"', async () => {
  const dir = await tempDir()
  const file = join(dir, 'dump.json')
  try {
    await writeFile(file, '{"half":')
    const parsed = waitFor(async () => JSON.parse(await readFile(file, 'utf8')) as { half: number })
    await new Promise((resolve) => setTimeout(resolve, 100))
    await writeFile(`${file}.part`, '{"half":1}')
    await rename(`${file}.part`, file)
    expect(await parsed).toEqual({ half: 1 })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

it('reports the last error the probe threw when the deadline passes', async () => {
  let tries = 0
  const failed = waitFor(() => {
    tries += 1
    throw new Error(`not there on try ${tries}`)
  }, 200)
  await expect(failed).rejects.toThrow(/^condition not met in 200 ms; the probe last threw: not there on try \d+$/)
  expect(tries).toBeGreaterThan(1)
  await expect(waitFor(() => undefined, 50)).rejects.toThrow('condition not met in 50 ms')
})

it('ends at once, with the reason, on GiveUp', async () => {
  const started = Date.now()
  await expect(waitFor(() => { throw new GiveUp(new Error('the feed ended')) }, 10_000)).rejects.toThrow(/^the feed ended$/)
  expect(Date.now() - started).toBeLessThan(1_000)
})
