#!/usr/bin/env node
import { Command, CommanderError } from 'commander'
import { DaemonError, ServiceHomeError, SVC_VERSION, UnreachableError } from '@svc/protocol'
import { accountsCommand } from './commands/accounts.js'
import { agentServerCommand } from './commands/agent-server.js'
import { configCommand } from './commands/config.js'
import { daemonCommand } from './commands/daemon.js'
import { eventsCommand } from './commands/events.js'
import { healthCommand } from './commands/health.js'
import { programsCommand } from './commands/programs.js'
import { projectsCommand } from './commands/projects.js'
import { routesCommand } from './commands/routes.js'
import { sessionsCommand } from './commands/sessions.js'
import { tabsCommand } from './commands/tabs.js'
import { tasksCommand } from './commands/tasks.js'
import { openUi, uiCommand } from './commands/ui.js'
import { webCommand } from './commands/web.js'
import { EXIT, UsageError } from './exit.js'
import { refuseRemovedFlags } from './removed-flags.js'

function program(): Command {
  const svc = new Command('svc')
    .description('Run a fleet of coding agents, each in its own git worktree and tmux session, driven by one local daemon.')
    .version(SVC_VERSION)
    .option('--json', 'print JSON (the default when stdout is not a terminal)')
    .showHelpAfterError()
    .exitOverride()
    .addHelpText(
      'after',
      `
The daemon starts on demand. State lives in SERVICE_HOME (default ~/.svc).
Exit codes: 0 ok, 1 the daemon refused, 2 usage error, 3 daemon unreachable, 4 a prompt was not delivered.`,
    )
  routesCommand(svc)
  daemonCommand(svc)
  healthCommand(svc)
  eventsCommand(svc)
  sessionsCommand(svc)
  tabsCommand(svc)
  projectsCommand(svc)
  programsCommand(svc)
  accountsCommand(svc)
  configCommand(svc)
  tasksCommand(svc)
  webCommand(svc)
  uiCommand(svc)
  agentServerCommand(svc)
  refuseRemovedFlags(svc)
  svc.commands.forEach(function prepare(command: Command) {
    command.exitOverride()
    refuseRemovedFlags(command)
    command.commands.forEach(prepare)
  })
  return svc
}

/** A daemon that rejects a field this client sends is older than the client. */
function versionSkew(error: DaemonError): string | undefined {
  const field = /unknown field "([^"]+)"/.exec(error.message)?.[1]
  if (error.status !== 400 || field === undefined) return undefined
  return (
    `version skew: the running daemon does not know the field "${field}" that this client (${SVC_VERSION}) sends.\n` +
    'Restart the daemon so it matches the client: svc daemon stop && svc daemon start'
  )
}

function report(error: unknown): number {
  if (error instanceof CommanderError) {
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage
  }
  const say = (message: string) => process.stderr.write(`svc: ${message}\n`)
  if (error instanceof UsageError || error instanceof ServiceHomeError) {
    say(error.message)
    return EXIT.usage
  }
  if (error instanceof UnreachableError) {
    say(error.message)
    return EXIT.unreachable
  }
  if (error instanceof DaemonError) {
    say(versionSkew(error) ?? error.message)
    if (error.committed) say('the change was saved before the failure; do not retry it')
    else if (!error.daemonRejected) say('the outcome is uncertain: check the state before retrying')
    return EXIT.daemon
  }
  say(error instanceof Error ? error.message : String(error))
  return EXIT.daemon
}

/** `svc` alone on a terminal is the terminal UI; elsewhere it prints the help, as before. */
const interactive = process.argv.length === 2 && process.stdin.isTTY && process.stdout.isTTY

const run: Promise<unknown> = interactive ? openUi() : program().parseAsync(process.argv)
run.catch((error: unknown) => {
  process.exitCode = report(error)
})
