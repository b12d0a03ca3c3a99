import type { Command } from 'commander'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { outputOf, printFields, printJson } from '../output.js'

export function healthCommand(program: Command): void {
  program
    .command('health')
    .description('ask the daemon for its health (starting it if needed)')
    .action(async (_options, command: Command) => {
      const health = await callDaemon(resolvePaths(), 'Health')
      if (outputOf(command.optsWithGlobals()).json) return printJson(health)
      printFields(health)
    })
}
