import { spawnSync } from 'node:child_process'
import type { Command } from 'commander'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { outputOf, printTable } from '../output.js'
import { reply } from '../reply.js'

/** Whether `name`'s account shows its credential file now. */
async function loggedIn(agent: string, name: string): Promise<boolean> {
  const { accounts } = await callDaemon(resolvePaths(), 'ListAccounts', { agent })
  return accounts.some((account) => account.name === name && account.logged_in)
}

export function accountsCommand(program: Command): void {
  const accounts = program
    .command('accounts')
    .description("agent accounts: credential homes the agents log in to (the daemon never reads the credentials)")

  accounts
    .command('list')
    .description('registered accounts and whether each is logged in')
    .option('--agent <agent>', 'only this agent (claude, codex)')
    .action(async (options: { agent?: string }, command: Command) => {
      const response = await callDaemon(resolvePaths(), 'ListAccounts', options.agent ? { agent: options.agent } : {})
      reply(command, response, () =>
        response.accounts.length === 0
          ? void process.stdout.write(`no accounts (agents with accounts: ${response.agents.join(', ')})\n`)
          : printTable(
              ['AGENT', 'NAME', 'LOGGED IN', 'PATH'],
              response.accounts.map((account) => [account.agent, account.name, account.logged_in ? 'yes' : 'no', account.path]),
            ),
      )
    })

  accounts
    .command('register <agent> <name>')
    .description("create an account's credential directory without logging in (idempotent)")
    .action(async (agent: string, name: string, _options, command: Command) => {
      const response = await callDaemon(resolvePaths(), 'RegisterAccount', { agent, name })
      reply(command, response, response.created ? `registered ${agent} account ${name}` : `${agent} account ${name} exists`)
    })

  accounts
    .command('login <agent> <name>')
    .description("run the agent's own login flow for one account in a tmux session, and attach to it (registers the account if missing)")
    .option('--no-attach', 'start the login session and print how to attach to it')
    .addHelpText('after', '\nDetach with the tmux prefix and d (C-b d); the login session stays until its flow ends.')
    .action(async (agent: string, name: string, options: { attach: boolean }, command: Command) => {
      const login = await callDaemon(resolvePaths(), 'AccountLogin', { agent, name })
      const attach = options.attach && process.stdin.isTTY && process.stdout.isTTY && !outputOf(command.optsWithGlobals()).json
      if (!attach) {
        reply(command, login, `login for ${agent} account ${name} runs in tmux; attach with:\n  ${login.attach_command}`)
        return
      }
      spawnSync('tmux', ['-S', login.tmux_socket, 'attach', '-t', `=${login.tmux_session}`], { stdio: 'inherit' })
      const done = await loggedIn(agent, name)
      process.stdout.write(done ? `${agent} account ${name} is logged in\n` : `${agent} account ${name} is not logged in yet\n`)
    })
}
