import { resolve } from 'node:path'
import type { Command } from 'commander'
import { callerDirectory } from '../args.js'
import { resolvePaths } from '../daemon-process.js'
import { localOnly } from '../daemon-target.js'

export function bugReportCommand(program: Command): void {
  localOnly(program.command('bug-report'))
    .description(
      'write one file (mode 0600) to attach to an issue: versions, svc doctor --json, the end of daemon.log, the config, session and task records, with titles, prompts, commands, URLs and tokens redacted and the home directory as ~; never starts the daemon',
    )
    .option('-o, --output <file>', 'where to write it (default: svc-bug-report-<time>.md here)')
    .action(async (options: { output?: string }) => {
      // Loaded here: the report reads the state with the daemon's own code, which other commands need not load.
      const { writeBugReport } = await import('../bug-report/report.js')
      const file = resolve(callerDirectory(), options.output ?? `svc-bug-report-${new Date().toISOString().replace(/[:.]/g, '-')}.md`)
      await writeBugReport(resolvePaths(), file)
      process.stdout.write(`wrote ${file}\nRead it before you share it: secrets are redacted as [redacted], but check nothing private is left.\n`)
    })
}
