// Reliability at scale: a seeded fuzz soak over every public route (answers inside the
// contract, and the daemon's memory at start, after the run and after a GC), then the
// daemon killed with SIGKILL in the middle of acknowledged writes, 100 times.
import { mkdtemp, rm } from 'node:fs/promises'
import { CLIENT_VERSION_HEADER } from '@svc/protocol'
import { fuzzer, judge, sendFuzz } from './fuzz-kit.mjs'
import { killLoop } from './kill-loop.mjs'
import { heapAfterGc, inspectorOptions, peakRssMiB, resetPeakRss, rssMiB } from './memory.mjs'
import { onInterrupt, percentile, report, startDaemon } from './harness.mjs'

const FUZZ_REQUESTS = Number(process.env.BENCH_FUZZ_REQUESTS ?? 10_000)
const KILL_CYCLES = Number(process.env.BENCH_KILL_CYCLES ?? 100)
const SEED = 20_261_124

async function soak() {
  const { port, env } = await inspectorOptions()
  const daemon = await startDaemon({ env })
  try {
    const rss = { start: rssMiB(daemon.pid) }
    const heap = { start: await heapAfterGc(port) }
    resetPeakRss(daemon.pid)
    const requests = fuzzer(SEED, { hugeChars: 2_000_000 })
    const statuses = {}
    const findings = []
    const began = performance.now()
    for (let sent = 0; sent < FUZZ_REQUESTS; sent++) {
      // Now and then a body just over the 16 MiB cap.
      const request = sent % 1000 === 999 ? requests.oversized() : requests.next()
      if (sent % 2 === 1) request.headers[CLIENT_VERSION_HEADER] ??= '1.0.0'
      const reply = await sendFuzz(daemon.paths.socket, request)
      statuses[reply.status] = (statuses[reply.status] ?? 0) + 1
      for (const finding of judge(reply)) findings.push(`${request.method} ${request.path}: ${finding}`)
    }
    const seconds = (performance.now() - began) / 1000
    rss.run = rssMiB(daemon.pid)
    rss.peak = peakRssMiB(daemon.pid)
    heap.end = await heapAfterGc(port)
    rss.gc = rssMiB(daemon.pid)
    report(`Fuzz soak: ${FUZZ_REQUESTS.toLocaleString('en-US')} seeded hostile requests over every public route (seed ${SEED})`, [
      ['answers by status', Object.entries(statuses).map(([status, count]) => `${status}: ${count}`).join(', ')],
      ['past the content-type gate (not 415)', `${(100 - ((statuses[415] ?? 0) * 100) / FUZZ_REQUESTS).toFixed(1)} %  (target at least 80 %)`],
      ['non-envelope or off-contract answers', `${findings.length}  (target 0)`],
      // The first few, so a finding can be replayed (FUZZ_SEED in fuzz.test.ts).
      ...findings.slice(0, 5).map((finding) => ['  off-contract', finding.slice(0, 200)]),
      ['requests per second, one at a time', (FUZZ_REQUESTS / seconds).toFixed(0)],
      ['RSS: start / after the run / after a GC', `${rss.start.toFixed(1)} / ${rss.run.toFixed(1)} / ${rss.gc.toFixed(1)} MiB`],
      ['RSS peak during the run ÷ start', `${(rss.peak / rss.start).toFixed(2)}  (${rss.peak.toFixed(1)} MiB, the kernel's high-water mark; target <= 2)`],
      ['heap in use after a GC: start / end', `${heap.start.toFixed(1)} / ${heap.end.toFixed(1)} MiB  (ratio ${(heap.end / heap.start).toFixed(2)}, target near 1)`],
    ])
  } finally {
    await daemon.stop()
  }
}

async function kills() {
  const dir = await mkdtemp('/tmp/svc-bench-')
  const remove = onInterrupt(() => rm(dir, { recursive: true, force: true }))
  try {
    const figures = await killLoop({ dir, cycles: KILL_CYCLES, seed: SEED })
    const firstWrites = [...figures.firstWriteMs].sort((a, b) => a - b)
    const starts = [...figures.startMs].sort((a, b) => a - b)
    report(`SIGKILL loop: ${KILL_CYCLES} kills in the middle of AddTask, RegisterProject and SetConfigValue`, [
      ['acknowledged / attempted writes', `${figures.acked} / ${figures.attempted}`],
      ['acknowledged writes lost', `${figures.lost.length}  (target 0)`],
      ['first task write after a restart', `p50 ${percentile(firstWrites, 50).toFixed(1)} ms  max ${firstWrites.at(-1).toFixed(1)} ms  (a left lock: up to 10,000 ms)`],
      ['start to ready', `p50 ${percentile(starts, 50).toFixed(0)} ms  max ${starts.at(-1).toFixed(0)} ms`],
      ['locks and temp files: left by the kills / after the restarts', `${figures.leftByKills} / ${figures.leftAfterStart.length}  (target 0 after)`],
    ])
  } finally {
    await remove()
  }
}

export async function run() {
  await soak()
  await kills()
}
