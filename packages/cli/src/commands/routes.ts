import type { Command } from 'commander'
import { catalog } from '@svc/protocol'
import { resolvePaths } from '../daemon-process.js'
import { localOnly } from '../daemon-target.js'
import { outputOf, printJson, printTable } from '../output.js'

export function routesCommand(program: Command): void {
  localOnly(program.command('routes'))
    .description('print the route catalog and the resolved socket path (never contacts the daemon)')
    .action((_options, command: Command) => {
      const { socket } = resolvePaths()
      const routes = catalog().map(({ name, method, path, group, summary }) => ({ name, method, path, group, summary }))
      if (outputOf(command.optsWithGlobals()).json) return printJson({ socket, routes })
      process.stdout.write(`socket: ${socket}\n\n`)
      printTable(
        ['NAME', 'METHOD', 'PATH', 'GROUP', 'SUMMARY'],
        routes.map((route) => [route.name, route.method, route.path, route.group, route.summary]),
      )
    })
}
