import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { createClient, type Client } from '@svc/protocol'
import { connect, resolvePaths } from './daemon-process.js'
import { UsageError } from './exit.js'

/** `--url` and `--token-file`: the commands that can work against another machine's daemon. */
export interface RemoteOptions {
  url?: string
  tokenFile?: string
}

export function withRemoteOptions(command: Command): Command {
  return command
    .option('--url <url>', "a remote daemon's TCP listener, such as http://server:8443 (default: $SVC_URL, else this machine's socket)")
    .option('--token-file <path>', "the remote daemon's token (default: $SVC_TOKEN, else $SERVICE_HOME/daemon-token)")
}

/** A remote daemon's token: SVC_TOKEN, else the file named, else this machine's own daemon-token. */
function tokenFor(options: RemoteOptions): string | undefined {
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
export async function daemonFor(options: RemoteOptions): Promise<Client> {
  const url = options.url ?? process.env.SVC_URL
  if (url) return createClient({ url, token: tokenFor(options) })
  return connect(resolvePaths())
}
