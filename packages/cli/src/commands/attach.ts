import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { createClient, type Client } from '@svc/protocol'
import { runAttached } from '../attached-terminal.js'
import { connect, resolvePaths } from '../daemon-process.js'
import { UsageError } from '../exit.js'
import { lookupSession, withSessionRef, type SessionRefOptions } from '../session-ref.js'

interface AttachOptions extends SessionRefOptions {
  url?: string
  tokenFile?: string
  tab?: string
}

/** A remote daemon's token: SVC_TOKEN, else the file named, else this machine's own daemon-token. */
function tokenFor(options: AttachOptions): string | undefined {
  if (process.env.SVC_TOKEN) return process.env.SVC_TOKEN
  const file = options.tokenFile ?? resolvePaths().token
  try {
    return readFileSync(file, 'utf8').trim()
  } catch (error) {
    if (options.tokenFile) throw new UsageError(`cannot read the token file ${file}: ${(error as Error).message}`)
    return undefined
  }
}

/** The daemon on --url / SVC_URL (its TCP listener), else the local one over its socket, started on demand. */
async function daemonFor(options: AttachOptions): Promise<Client> {
  const url = options.url ?? process.env.SVC_URL
  if (url) return createClient({ url, token: tokenFor(options) })
  return connect(resolvePaths())
}

/**
 * `svc sessions attach`: this terminal subscribes to the session's terminal stream, on this
 * machine or a remote one, so no ssh or local tmux is needed; Ctrl-\ detaches.
 */
export function attachCommand(sessions: Command): void {
  withSessionRef(sessions.command('attach <title>'))
    .description("attach this terminal to the session's agent through the daemon's terminal stream (detach with Ctrl-\\)")
    .option('--tab <index>', "the tab's index (0, the agent, by default)")
    .option('--url <url>', "a remote daemon's TCP listener, such as http://server:8443 (default: $SVC_URL, else this machine's socket)")
    .option('--token-file <path>', "the remote daemon's token (default: $SVC_TOKEN, else $SERVICE_HOME/daemon-token)")
    .addHelpText('after', "\nWhile attached, the daemon does not read the agent's screen as work, and deferred prompts wait.")
    .action(async (title: string, options: AttachOptions) => {
      if (!process.stdin.isTTY) throw new UsageError('svc sessions attach needs a terminal, and stdin is not one')
      const tab = options.tab === undefined ? 0 : Number(options.tab)
      if (!Number.isInteger(tab) || tab < 0) throw new UsageError(`--tab must be a tab's index, not ${options.tab}`)
      const client = await daemonFor(options)
      const session = await lookupSession(title, options, (body) => client.call('Snapshot', body))
      if (session.liveness_name === 'archived') {
        throw new Error(`session "${session.title}" is archived; bring it back with: svc sessions restore-archived ${session.title}`)
      }
      const ended = await runAttached(await client.stream(session.id, { tab }))
      if (ended === 'detached') process.stdout.write(`[detached from ${session.title}]\n`)
      else process.stdout.write(`[the terminal of ${session.title} closed]\n`)
    })
}
