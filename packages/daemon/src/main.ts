#!/usr/bin/env node
import { startDaemon } from './daemon.js'
import { AlreadyRunning } from './singleton.js'

/** Told apart by `svc`, which then waits for the daemon that holds the lock (EX_TEMPFAIL). */
const ALREADY_RUNNING_EXIT = 75

/** The daemon in the foreground: `pnpm --filter daemon start`, or spawned by `svc`. */
async function main(): Promise<void> {
  // A parent that stopped reading our stderr must not crash us.
  process.stderr.on('error', () => {})
  const daemon = await startDaemon(process.env).catch((error: Error) => {
    process.stderr.write(`svc daemon: ${error.message}\n`)
    process.exit(error instanceof AlreadyRunning ? ALREADY_RUNNING_EXIT : 1)
  })
  process.stdout.write(`svc daemon listening on ${daemon.paths.socket} (pid ${process.pid})\n`)

  let signalled = false
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1)
    signalled = true
    daemon.core.log.info({ signal }, 'shutting down')
    void daemon.stop().then(() => process.exit(0))
  }
  process.on('SIGTERM', shutdown)
  process.on('SIGINT', shutdown)

  await daemon.restored.catch(async (error: Error) => {
    daemon.core.log.fatal({ err: error }, 'restore failed')
    process.stderr.write(`svc daemon: restore failed: ${error.message}\n`)
    await daemon.stop()
    process.exit(1)
  })
}

void main()
