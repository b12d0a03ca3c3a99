import { resolve } from 'node:path'
import { Command } from 'commander'
import { expandHome } from '@svc/protocol'
import { UsageError } from '../exit.js'
import { localOnly } from '../daemon-target.js'

interface AgentServerFlags {
  home: string
  workspace?: string
  listen: string
}

export function agentServerCommand(program: Command): void {
  localOnly(program.command('agent-server'))
    .description('run a daemon in the foreground for one workspace, for a home daemon to drive; prints {"url", "token"} on stdout once ready; SIGTERM or Ctrl-C stops it')
    .option('--home <dir>', 'its own SERVICE_HOME (never the one of your daemon)', '~/.svc-agent')
    .option('--workspace <dir>', 'the git checkout it serves (default: the working directory)')
    .option('--listen <addr>', 'its TCP listener as host:port (the token is always required)', '127.0.0.1:0')
    .action(async (flags: AgentServerFlags) => {
      // The daemon is loaded only here: every other command stays a light client.
      const { AgentServerOptionError, startAgentServer } = await import('@svc/daemon')
      // A parent that stopped reading our stderr must not stop the server.
      process.stderr.on('error', () => {})
      const endpoint = await startAgentServer({
        home: resolve(expandHome(flags.home, undefined, '--home')),
        workspace: resolve(expandHome(flags.workspace ?? process.cwd(), undefined, '--workspace')),
        listen: flags.listen,
      }).catch((error: unknown) => {
        throw error instanceof AgentServerOptionError ? new UsageError(error.message) : error
      })
      // The one line on stdout: whoever started it reads the endpoint from here.
      process.stdout.write(`${JSON.stringify(endpoint)}\n`)
    })
}
