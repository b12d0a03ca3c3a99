import type { Command } from 'commander'
import { runAttached } from '@svc/tui/attached-terminal'
import { connect, resolvePaths } from '../daemon-process.js'
import { UsageError } from '../exit.js'
import { lookupSession, withSessionRef, type SessionRefOptions } from '../session-ref.js'

interface AttachOptions extends SessionRefOptions {
  tab?: string
}

/**
 * `svc sessions attach`: this terminal subscribes to the session's terminal stream, on this
 * machine or a remote one, so no ssh or local tmux is needed; Ctrl-\ detaches.
 */
export function attachCommand(sessions: Command): void {
  withSessionRef(sessions.command('attach <title>'))
    .description("attach this terminal to the session's agent through the daemon's terminal stream (detach with Ctrl-\\)")
    .option('--tab <index>', "the tab's index (0, the agent, by default)")
    .addHelpText('after', "\nWhile attached, the daemon does not read the agent's screen as work, and deferred prompts wait.")
    .action(async (title: string, options: AttachOptions) => {
      if (!process.stdin.isTTY) throw new UsageError('svc sessions attach needs a terminal, and stdin is not one')
      const tab = options.tab === undefined ? 0 : Number(options.tab)
      if (!Number.isInteger(tab) || tab < 0) throw new UsageError(`--tab must be a tab's index, not ${options.tab}`)
      const client = await connect(resolvePaths())
      const session = await lookupSession(title, options, (body) => client.call('Snapshot', body))
      if (session.liveness_name === 'archived') {
        throw new Error(`session "${session.title}" is archived; bring it back with: svc sessions restore-archived ${session.title}`)
      }
      const ended = await runAttached(await client.stream(session.id, { tab }))
      if (ended === 'detached') process.stdout.write(`[detached from ${session.title}]\n`)
      else process.stdout.write(`[the terminal of ${session.title} closed]\n`)
    })
}
