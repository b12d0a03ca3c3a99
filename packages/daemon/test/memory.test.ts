import { afterAll, beforeAll, expect, it } from 'vitest'
import { fuzzer, sendFuzz } from '../bench/fuzz-kit.mjs'
import { heapAfterGc, inspectorOptions, rssMiB } from '../bench/memory.mjs'
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
