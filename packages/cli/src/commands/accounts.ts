import type { Command } from 'commander'
import { callDaemon } from '../call.js'
import { connect, resolvePaths } from '../daemon-process.js'
import { runAttached } from '@svc/tui/attached-terminal'
import { outputOf, printTable } from '../output.js'
import { reply } from '../reply.js'

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
    .description("run the agent's own login flow for one account on the daemon's machine, and attach this terminal to it (registers the account if missing)")
    .option('--no-attach', 'start the login and print how to attach to it on the daemon\'s machine')
    .addHelpText('after', '\nThe terminal follows the login through the daemon (Ctrl-\\ detaches; the login runs on until its flow ends).')
    .action(async (agent: string, name: string, options: { attach: boolean }, command: Command) => {
      const client = await connect(resolvePaths())
      const login = await client.call('AccountLogin', { agent, name })
      const attach = options.attach && process.stdin.isTTY && process.stdout.isTTY && !outputOf(command.optsWithGlobals()).json
      if (!attach) {
        reply(command, login, `login for ${agent} account ${name} runs in tmux on the daemon's machine; attach there with:\n  ${login.attach_command}`)
        return
      }
      const ended = await runAttached(await client.loginStream(agent, name))
      const { accounts: listed } = await client.call('ListAccounts', { agent })
      const done = listed.some((account) => account.name === name && account.logged_in)
      if (ended === 'detached') process.stdout.write(`[detached; the login runs on in tmux on the daemon's machine until its flow ends]\n`)
      process.stdout.write(done ? `${agent} account ${name} is logged in\n` : `${agent} account ${name} is not logged in yet\n`)
    })
}
