import type { Command } from 'commander'
import { connect, resolvePaths } from '../daemon-process.js'
import { awayDaemon } from '../daemon-target.js'
import { UsageError } from '../exit.js'

/** The terminal UI, loaded only when asked for, so the other commands start without React and ink. */
export async function openUi(): Promise<void> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw new UsageError('svc ui needs a terminal, and stdin or stdout is not one')
  const paths = resolvePaths()
  const client = await connect(paths)
  // React's development build checks and times every render: several times slower at 500 sessions.
  process.env.NODE_ENV ??= 'production'
  // ink draws only a final frame when CI is set (a log, not a person): this is a terminal.
  const ci = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION }
  for (const name of Object.keys(ci)) delete process.env[name]
  const { runUi } = await import('@svc/tui')
  for (const [name, value] of Object.entries(ci)) if (value !== undefined) process.env[name] = value
  // A daemon on another machine has no tmux here: every attach goes through its stream.
  await runUi({ client, ...(awayDaemon() ? {} : { tmuxSocket: paths.tmuxSocket }), cwd: process.cwd() })
}

export function uiCommand(program: Command): void {
  program
    .command('ui')
    .description('the terminal UI: sessions by project, live state, previews, attach (also `svc` alone on a terminal)')
    .action(openUi)
}
