import { Command } from 'commander'
import { SVC_VERSION } from '@svc/protocol'
import { accountsCommand } from './commands/accounts.js'
import { agentServerCommand } from './commands/agent-server.js'
import { configCommand } from './commands/config.js'
import { bugReportCommand } from './commands/bug-report.js'
import { daemonCommand } from './commands/daemon.js'
import { doctorCommand } from './commands/doctor.js'
import { eventsCommand } from './commands/events.js'
import { healthCommand } from './commands/health.js'
import { imageCommand } from './commands/image.js'
import { hostsCommand } from './commands/hosts.js'
import { programsCommand } from './commands/programs.js'
import { projectsCommand } from './commands/projects.js'
import { routesCommand } from './commands/routes.js'
import { sessionsCommand } from './commands/sessions.js'
import { tabsCommand } from './commands/tabs.js'
import { tasksCommand } from './commands/tasks.js'
import { openUi, uiCommand } from './commands/ui.js'
import { webCommand } from './commands/web.js'
import { withDaemonTarget } from './daemon-target.js'
import { refuseRemovedFlags } from './removed-flags.js'

/** The whole `svc` command tree, built without running it: main.ts parses argv with it, docs/cli.md is written from it. */
export function program(): Command {
  const svc = withDaemonTarget(new Command('svc'))
    .description('Run a fleet of coding agents, each in its own git worktree and tmux session, driven by one local daemon.')
    .version(SVC_VERSION)
    .option('--json', 'print JSON (the default when stdout is not a terminal)')
    .showHelpAfterError()
    .exitOverride()
    .addHelpText(
      'after',
      `
The daemon starts on demand. State lives in SERVICE_HOME (default ~/.svc).
With --daemon-url (or SVC_DAEMON_URL) and --token-file, the commands and the terminal UI drive a daemon on another machine.
Exit codes: 0 ok, 1 the daemon refused (svc doctor: something is wrong), 2 usage error, 3 daemon unreachable, 4 a prompt was not delivered.`,
    )
  routesCommand(svc)
  daemonCommand(svc)
  healthCommand(svc)
  doctorCommand(svc)
  bugReportCommand(svc)
  eventsCommand(svc)
  sessionsCommand(svc)
  tabsCommand(svc)
  projectsCommand(svc)
  programsCommand(svc)
  imageCommand(svc)
  hostsCommand(svc)
  accountsCommand(svc)
  configCommand(svc)
  tasksCommand(svc)
  webCommand(svc)
  uiCommand(svc)
  agentServerCommand(svc)
  // `svc` alone (or with only --daemon-url and --token-file) on a terminal is the terminal UI; elsewhere it prints the help.
  // After the subcommands: they would inherit allowExcessArguments.
  svc.allowExcessArguments().action(() => {
    if (svc.args.length > 0) svc.error(`error: unknown command '${svc.args[0]}'`)
    return process.stdin.isTTY && process.stdout.isTTY ? openUi() : svc.help({ error: true })
  })
  refuseRemovedFlags(svc)
  svc.commands.forEach(function prepare(command: Command) {
    command.exitOverride()
    refuseRemovedFlags(command)
    command.commands.forEach(prepare)
  })
  return svc
}
