#!/usr/bin/env node
import { DAEMON_EXIT } from '@svc/protocol'
import { startDaemon } from './daemon.js'
import { serveInForeground } from './foreground.js'
import { AlreadyRunning } from './singleton.js'

/** The daemon in the foreground: `pnpm --filter daemon start`, or spawned by `svc`. */
async function main(): Promise<void> {
  // A parent that stopped reading our stderr must not crash us.
  process.stderr.on('error', () => {})
  const daemon = await startDaemon(process.env).catch((error: Error) => {
    process.stderr.write(`svc daemon: ${error.message}\n`)
    process.exit(error instanceof AlreadyRunning ? DAEMON_EXIT.alreadyRunning : DAEMON_EXIT.failed)
  })
  process.stdout.write(`svc daemon listening on ${daemon.paths.socket} (pid ${process.pid})\n`)
  await serveInForeground(daemon, 'svc daemon')
}

void main()
