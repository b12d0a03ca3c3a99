import { afterAll, beforeAll, expect, it } from 'vitest'
import { fuzzer, sendFuzz } from '../bench/fuzz-kit.mjs'
import { heapAfterGc, inspectorOptions, peakRssMiB, resetPeakRss, rssMiB } from '../bench/memory.mjs'
import { startDaemon, tempHomes, type TestDaemon } from '@svc/test-kit'

const homes = tempHomes()
let daemon: TestDaemon
let inspector: number

beforeAll(async () => {
  const dir = await homes.make()
  const { port, env } = await inspectorOptions()
  inspector = port
  daemon = await startDaemon({ home: dir, cwd: dir, env })
})
afterAll(homes.release)

/**
 * The cache that grew: AddTask with a long, each time different, malformed cron_expr
 * kept every refused expression (200 MB over 1,000 requests), beside the fuzz mix.
 */
it('keeps no memory for bad requests once they are answered', { timeout: 600_000 }, async () => {
  const pid = daemon.process.pid as number
  const heapBefore = await heapAfterGc(inspector)
  const rssBefore = rssMiB(pid)
  const requests = fuzzer(11, { hugeChars: 100_000 })
  for (let n = 0; n < 300; n++) {
    const body = JSON.stringify({ task: { name: 'n', prompt: 'p', cron_expr: `${n} ${'x'.repeat(100_000)}`, project_path: '/tmp' } })
    await sendFuzz(daemon.paths.socket, { route: 'AddTask', method: 'POST', path: '/v1/AddTask', headers: {}, body })
    await sendFuzz(daemon.paths.socket, requests.next())
  }
  const rssAfter = rssMiB(pid)
  const heapAfter = await heapAfterGc(inspector)
  process.stdout.write(
    `memory: heap after GC ${heapBefore.toFixed(1)} -> ${heapAfter.toFixed(1)} MiB; RSS ${rssBefore.toFixed(1)} -> ${rssAfter.toFixed(1)} MiB ` +
      `(after the run) -> ${rssMiB(pid).toFixed(1)} MiB (after GC)\n`,
  )
  // Generous: 300 kept expressions alone were 60 MB.
  expect(heapAfter - heapBefore).toBeLessThan(25)
})

/**
 * Bodies of megabytes leave their text in the old generation; with V8's own heap growth
 * (a factor of up to 4 on a machine with gigabytes) the dead text took the peak 165 to
 * 190 MiB above the start over 300 such bodies (80 with the daemon's limit), and to 6
 * times the start in the bench's fuzz soak.
 */
it('keeps its RSS peak within 120 MiB of its start through bodies of megabytes', { timeout: 600_000 }, async () => {
  const pid = daemon.process.pid as number
  await heapAfterGc(inspector)
  const start = rssMiB(pid)
  resetPeakRss(pid)
  for (let n = 0; n < 300; n++) {
    // Six bytes of JSON per character: 6 to 10 MB.
    const body = JSON.stringify({ task: { name: `${n}`, prompt: '\u0000'.repeat(1_000_000 + (n % 7) * 100_000) } })
    await sendFuzz(daemon.paths.socket, { route: 'AddTask', method: 'POST', path: '/v1/AddTask', headers: { 'content-type': 'application/json' }, body })
  }
  const peak = peakRssMiB(pid)
  process.stdout.write(`memory: RSS ${start.toFixed(1)} MiB at the start, peak ${peak.toFixed(1)} MiB\n`)
  expect(peak - start).toBeLessThan(120)
})
