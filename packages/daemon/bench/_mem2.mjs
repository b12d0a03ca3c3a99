import { join } from 'node:path'
import { heapAfterGc, inspectorOptions, rssMiB } from './memory.mjs'
import { IDLE, startDaemon, withTempDir } from './harness.mjs'
import { makeRepo } from './sessions.mjs'
await withTempDir(async (dir) => {
  const repo = await makeRepo(join(dir, 'repo'))
  const { port, env } = await inspectorOptions()
  const daemon = await startDaemon({ config: { network: { listen_addr: '' }, daemon_poll_interval: '250ms' }, env })
  try {
    await new Promise((r) => setTimeout(r, 1500))
    const raw0 = rssMiB(daemon.pid); const h0 = await heapAfterGc(port); const gc0 = rssMiB(daemon.pid)
    const out = [`0: raw ${raw0.toFixed(1)} gc ${gc0.toFixed(1)} heap ${h0.toFixed(1)}`]
    for (const size of [100, 200]) {
      for (let i = 0; i < 100; i++) await daemon.client.call('CreateSession', { repo_path: repo, title: `idle-${size}-${i}`, program: IDLE })
      await new Promise((r) => setTimeout(r, 6000))
      const raw = rssMiB(daemon.pid); const h = await heapAfterGc(port); const gc = rssMiB(daemon.pid)
      out.push(`${size}: raw ${raw.toFixed(1)} gc ${gc.toFixed(1)} heap ${h.toFixed(1)}  per session raw ${((raw - raw0) * 1024 / size).toFixed(0)} gc ${((gc - gc0) * 1024 / size).toFixed(0)} heap ${((h - h0) * 1024 / size).toFixed(1)}`)
    }
    console.log(out.join('\n'))
  } finally { await daemon.stop() }
})
