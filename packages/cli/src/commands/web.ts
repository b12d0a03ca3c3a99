import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { outputOf, printJson } from '../output.js'

/** Where a browser on this machine reaches the TCP listener: loopback unless it is bound to one address. */
function browserHost(boundAddr: string): string {
  const host = boundAddr.slice(0, boundAddr.lastIndexOf(':'))
  const anyOrLoopback = host === '' || host === '0.0.0.0' || host === '[::]' || host.startsWith('127.')
  return anyOrLoopback ? '127.0.0.1' : host
}

export function webCommand(program: Command): void {
  program
    .command('web')
    .description('print the browser login URL of the TCP listener (it carries the token: keep it private)')
    .action(async (_options, command: Command) => {
      const paths = resolvePaths()
      const { tcp_bound_addr: addr, tcp_error: error } = (await callDaemon(paths, 'Health')).listeners
      if (addr === '') {
        throw new Error(
          `the TCP listener is off${error ? ` (${error})` : ''}; turn it on with: svc config set network.listen_addr 127.0.0.1:8443`,
        )
      }
      const token = (await readFile(paths.token, 'utf8')).trim()
      const port = addr.slice(addr.lastIndexOf(':') + 1)
      const url = `http://${browserHost(addr)}:${port}/?token=${encodeURIComponent(token)}`
      if (outputOf(command.optsWithGlobals()).json) return printJson({ url })
      process.stdout.write(`${url}\n`)
    })
}
