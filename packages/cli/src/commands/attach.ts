import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import type { Command } from 'commander'
import { resolvePaths } from '../daemon-process.js'
import { UsageError } from '../exit.js'
import { lookupSession, withSessionRef, type SessionRefOptions } from '../session-ref.js'

/** Runs tmux on this terminal and resolves with its exit code. */
function tmux(args: string[]): Promise<number> {
  // The daemon's server is not the one this shell may sit in: without TMUX, tmux does
  // not refuse to "nest" a client of a different server.
  const { TMUX: _inside, ...env } = process.env
  return new Promise((resolve, reject) => {
    const child = spawn('tmux', args, { stdio: 'inherit', env })
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error('tmux is not installed or not on PATH') : error),
    )
    // A shell reports death by a signal as 128 + its number; so does this command.
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)))
  })
}

/** `svc sessions attach`: this terminal becomes a tmux client of the session's agent tab. */
export function attachCommand(sessions: Command): void {
  withSessionRef(sessions.command('attach <title>'))
    .description("attach this terminal to the session's agent in tmux (detach with Ctrl-b d)")
    .addHelpText('after', '\nThe session runs on the daemon\'s own tmux server: tmux -S $SERVICE_HOME/tmux.sock')
    .action(async (title: string, options: SessionRefOptions) => {
      if (!process.stdin.isTTY) throw new UsageError('svc sessions attach needs a terminal, and stdin is not one')
      const paths = resolvePaths()
      const session = await lookupSession(paths, title, options)
      const agent = session.tabs[0]?.tmux_name
      if (session.liveness_name === 'archived' || !agent) {
        throw new Error(`session "${session.title}" is archived; bring it back with: svc sessions restore-archived ${session.title}`)
      }
      // `=` makes tmux match the name exactly, never a longer title that starts with it.
      process.exitCode = await tmux(['-S', paths.tmuxSocket, 'attach-session', '-t', `=${agent}`])
    })
}
