import { appendFileSync } from 'node:fs'
import { DAEMON_EXIT } from '@svc/protocol'
import type { RunningDaemon } from './daemon.js'
import { limitHeapGrowth } from './heap-growth.js'

/**
 * Runs a started daemon in the foreground: SIGTERM or SIGINT stops it and exits 0 (a
 * second signal exits at once); a failed restore stops it and exits failed. Settles once
 * the daemon is ready. `name` prefixes what it says on stderr. The process is the daemon's,
 * so its heap policy is set here.
 */
export async function serveInForeground(daemon: RunningDaemon, name: string): Promise<void> {
  limitHeapGrowth()
  let signalled = false
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(DAEMON_EXIT.failed)
    signalled = true
    daemon.core.log.info({ signal }, 'shutting down')
    void daemon.stop().then(() => process.exit(DAEMON_EXIT.ok))
  }
  process.on('SIGTERM', shutdown)
  process.on('SIGINT', shutdown)
  // A bug no handler caught ends the daemon as it would end Node, but says why in
  // daemon.log first, written at once: a daemon `svc` started has no stderr left to read.
  process.on('uncaughtException', (error) => {
    const record = { level: 60, time: Date.now(), pid: process.pid, err: { type: error.name, message: error.message, stack: error.stack }, msg: 'crashed' }
    appendFileSync(daemon.paths.log, `${JSON.stringify(record)}\n`)
    process.stderr.write(`${name}: crashed: ${error.stack ?? error.message}\n`)
    process.exit(DAEMON_EXIT.failed)
  })

  await daemon.restored.catch(async (error: Error) => {
    daemon.core.log.fatal({ err: error }, 'restore failed')
    process.stderr.write(`${name}: restore failed: ${error.message}\n`)
    await daemon.stop()
    process.exit(DAEMON_EXIT.failed)
  })
}
