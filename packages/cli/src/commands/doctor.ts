import type { Command } from 'commander'
import { resolvePaths } from '../daemon-process.js'
import { localOnly } from '../daemon-target.js'
import { checkLine } from '../doctor/check.js'
import { EXIT } from '../exit.js'
import { outputOf, printJson } from '../output.js'

export function doctorCommand(program: Command): void {
  localOnly(program.command('doctor'))
    .description(
      'check what svc needs (node, git, tmux, the state directory, the daemon, agents, backends) and find what svc left behind that nothing names; reads the state directory, never starts the daemon; exit 1 when something is wrong',
    )
    .option('--fix', 'remove the leftovers that hold no work (uncommitted changes or commits on no other branch or remote are kept, and said so)')
    .action(async (options: { fix?: boolean }, command: Command) => {
      // Loaded here: doctor reads the state with the daemon's own code, which other commands need not load.
      const { runDoctor } = await import('../doctor/doctor.js')
      const report = await runDoctor(resolvePaths(), options.fix === true)
      if (outputOf(command.optsWithGlobals()).json) printJson(report)
      else process.stdout.write(`${report.checks.map(checkLine).join('\n')}\n`)
      if (!report.ok) process.exitCode = EXIT.problems
    })
}
