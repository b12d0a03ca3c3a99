import { readFileSync } from 'node:fs'
import { Option, type Command } from 'commander'
import { createClient, DaemonError, UnreachableError, type Client } from '@svc/protocol'
import { UsageError } from './exit.js'

/** A daemon on another machine, driven through its TCP listener. */
export interface AwayDaemon {
  url: string
  token: string | undefined
  /** Where the token came from, as messages name it. */
  tokenFrom: string
}

let away: AwayDaemon | undefined

/** Commands about this machine's files: a daemon URL is refused for them. */
const LOCAL = new WeakSet<Command>()

/** `--daemon-url` and `--token-file` on the root command: every command below it takes them. */
export function withDaemonTarget(svc: Command): Command {
  return svc
    .addOption(new Option('--daemon-url <url>', "drive the daemon on another machine through its TCP listener, such as http://workstation:8443").env('SVC_DAEMON_URL'))
    .addOption(new Option('--token-file <path>', "the file holding that daemon's token (its $SERVICE_HOME/daemon-token, copied here); never a token on the command line").env('SVC_TOKEN_FILE'))
    .hook('preAction', (root, action) => {
      aim(root.opts(), process.env)
      for (let command: Command | null = action; command; command = command.parent) {
        if (LOCAL.has(command)) refuseAway(`svc ${command.name()}`)
      }
    })
}

/** Marks a command as one about this machine's files (svc routes, svc daemon, svc doctor, svc bug-report). */
export function localOnly(command: Command): Command {
  LOCAL.add(command)
  return command
}

/** Reads the root options (SVC_URL and SVC_TOKEN are older spellings of the URL and of the token itself). */
export function aim(options: { daemonUrl?: string; tokenFile?: string }, env: NodeJS.ProcessEnv): void {
  const url = options.daemonUrl ?? env.SVC_URL
  if (!url) return void (away = undefined)
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new UsageError(`--daemon-url ${url} is not a URL; give the TCP listener as http://host:port`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--daemon-url ${url}: the TCP listener is http:// or https://, not ${parsed.protocol}`)
  if (options.tokenFile) {
    try {
      away = { url, token: readFileSync(options.tokenFile, 'utf8').trim(), tokenFrom: `the token in ${options.tokenFile}` }
    } catch (error) {
      throw new UsageError(`cannot read the token file ${options.tokenFile}: ${(error as Error).message}`)
    }
    return
  }
  away = { url, token: env.SVC_TOKEN, tokenFrom: env.SVC_TOKEN ? 'the token in SVC_TOKEN' : 'no token (give --token-file or SVC_TOKEN_FILE)' }
}

/** The daemon on another machine this run drives, if any. */
export function awayDaemon(): AwayDaemon | undefined {
  return away
}

export function awayClient({ url, token }: AwayDaemon): Client {
  return createClient({ url, token })
}

/** Refuses a daemon URL for `what`, which acts on this machine's files. */
export function refuseAway(what: string): void {
  if (away) throw new UsageError(`${what} acts on this machine's files and its own daemon; it does not take a daemon URL (--daemon-url, SVC_DAEMON_URL)`)
}

/** What went wrong reaching the daemon on another machine, naming its URL; undefined for any other failure. */
export function awayFailure(error: unknown): string | undefined {
  if (!away) return undefined
  const { url, tokenFrom } = away
  if (error instanceof UnreachableError) {
    const why = error.code === 'ECONNREFUSED' ? 'the connection was refused (is its TCP listener on? svc config set network.listen_addr there)' : error.message
    return `cannot reach the daemon at ${url}: ${why}`
  }
  if (!(error instanceof DaemonError)) return undefined
  if (error.status === 401) return `the daemon at ${url} refused ${tokenFrom} (401): give the token from that machine's $SERVICE_HOME/daemon-token with --token-file`
  if (error.status === 403 && /host .* is not allowed/i.test(error.message)) {
    return `the daemon at ${url} refused the Host ${new URL(url).host} (403: ${error.message}); reach it as localhost (an ssh tunnel), or add the name to network.allowed_hosts there`
  }
  return undefined
}
