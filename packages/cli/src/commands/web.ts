import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import type { ResponseOf, ServicePaths } from '@svc/protocol'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { awayDaemon } from '../daemon-target.js'
import { outputOf, printJson } from '../output.js'

/** Where a browser on this machine reaches the TCP listener: loopback unless it is bound to one address. */
function browserHost(boundAddr: string): string {
  const host = boundAddr.slice(0, boundAddr.lastIndexOf(':'))
  const anyOrLoopback = host === '' || host === '0.0.0.0' || host === '[::]' || host.startsWith('127.')
  return anyOrLoopback ? '127.0.0.1' : host
}

/** Why there is no TCP login URL, and the command that gives one. */
export function tcpOffMessage(error: string | undefined): string {
  return `the TCP listener is off${error ? ` (${error})` : ''}; turn it on with: svc config set network.listen_addr 127.0.0.1:8443`
}

/**
 * The URL a browser on this machine opens to reach `path` on the TCP listener (the
 * daemon URL's, for a daemon on another machine), logging in with the token on the way
 * (the daemon trades it for a cookie); undefined while it is off.
 */
export async function loginUrl(paths: ServicePaths, listeners: ResponseOf<'Health'>['listeners'], path: string): Promise<string | undefined> {
  const elsewhere = awayDaemon()
  const addr = listeners.tcp_bound_addr
  if (!elsewhere && addr === '') return undefined
  const url = new URL(path, elsewhere ? elsewhere.url : `http://${browserHost(addr)}:${addr.slice(addr.lastIndexOf(':') + 1)}`)
  const token = elsewhere ? elsewhere.token : (await readFile(paths.token, 'utf8')).trim()
  if (token) url.searchParams.set('token', token)
  return url.href
}

/** Hands the URL to the desktop's browser (`open` on macOS, `xdg-open` elsewhere), without waiting for it. */
function openInBrowser(url: string): Promise<void> {
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open'
  return new Promise((resolve, reject) => {
    const child = spawn(opener, [url], { detached: true, stdio: 'ignore' })
    child.once('error', (error) => reject(new Error(`could not run ${opener} to open the browser: ${error.message}`)))
    child.once('spawn', () => (child.unref(), resolve()))
  })
}

export function webCommand(program: Command): void {
  program
    .command('web')
    .description('print the browser login URL of the TCP listener, where the web UI is (it carries the token: keep it private)')
    .option('--open', "also open it in this machine's browser")
    .action(async (options: { open?: boolean }, command: Command) => {
      const paths = resolvePaths()
      const { listeners } = await callDaemon(paths, 'Health')
      const url = await loginUrl(paths, listeners, '/')
      if (url === undefined) throw new Error(tcpOffMessage(listeners.tcp_error))
      if (options.open) await openInBrowser(url)
      if (outputOf(command.optsWithGlobals()).json) return printJson({ url })
      process.stdout.write(`${url}\n`)
    })
}
