import { existsSync } from 'node:fs'
import { chmod, mkdir } from 'node:fs/promises'
import { quote, type CheckedRequestOf, type ServicePaths } from '@svc/protocol'
import { ACCOUNT_AGENTS, agentOf, commandLineOf, takesAccounts, type AccountAgent } from '../agents/agent.js'
import type { Config } from '../config/config.js'
import type { ConfigResolver } from '../config/resolver.js'
import { NotFound, Refused } from '../errors.js'
import { paneEnvironment } from '../infra/env.js'
import { shellQuote } from '../infra/launcher.js'
import { sessionTarget, type Tmux } from '../infra/tmux.js'
import { KeyedQueue } from '../serial.js'
import { accountAgent, accountDir, accountEnvironment, accountNames, checkAccountName, loggedIn } from './homes.js'
import type { Req } from '../wire.js'


/** The tmux sessions of login flows: the daemon's own, named by no session record. */
export const LOGIN_TMUX_PREFIX = 'svc_login_'

/** tmux refuses `.` and `:` in session names. */
function loginSessionName(agent: AccountAgent, name: string): string {
  return `${LOGIN_TMUX_PREFIX}${agent.name}_${name.replace(/[.:]/g, '_')}`
}

/**
 * Agent accounts: credential homes under `accounts/<agent>/<name>/`, which the daemon
 * creates (0700) and checks for the credential file's presence, never reading it. The
 * login flow is the agent's own, run in a bare tmux session scoped to the account.
 */
export class Accounts {
  /** Registrations per agent, so two that differ only in case cannot both pass the check. */
  private readonly registrations = new KeyedQueue()

  constructor(
    private readonly paths: ServicePaths,
    private readonly config: Config,
    private readonly resolver: ConfigResolver,
    private readonly tmux: Tmux,
    /** The daemon's environment, which the login pane gets filtered. */
    private readonly source: NodeJS.ProcessEnv,
  ) {}

  /**
   * Every account, or one agent's; with `repo_path`, the accounts of the agent a new
   * session in that repository runs (its default program).
   */
  async list(request: Req<'ListAccountsRequest'>): Promise<Req<'ListAccountsResponse'>> {
    let agents = ACCOUNT_AGENTS.map((name) => accountAgent(name))
    if (request.agent) agents = [accountAgent(request.agent)]
    else if (request.repo_path) {
      const agent = agentOf((await this.resolver.forPath(request.repo_path)).settings.default_program)
      agents = takesAccounts(agent) ? [agent] : []
    }
    const accounts = agents.flatMap((agent) =>
      accountNames(this.paths.accounts, agent).map((name) => {
        const path = accountDir(this.paths.accounts, agent, name)
        return { agent: agent.name, name, logged_in: loggedIn(agent, path), path }
      }),
    )
    return { accounts, agents: [...ACCOUNT_AGENTS] }
  }

  /** Creates the account's directory; idempotent. Names are unique per agent regardless of case. */
  register(request: CheckedRequestOf<'RegisterAccount'>): Promise<Req<'RegisterAccountResponse'>> {
    const agent = accountAgent(request.agent)
    const name = checkAccountName(request.name)
    return this.registrations.run(agent.name, async () => {
      const dir = accountDir(this.paths.accounts, agent, name)
      if (existsSync(dir)) return { ok: true, created: false }
      const twin = accountNames(this.paths.accounts, agent).find((other) => other.toLowerCase() === name.toLowerCase())
      if (twin) throw new Refused(`a ${agent.name} account named ${quote(twin)} exists; account names are unique regardless of case`)
      await mkdir(dir, { recursive: true, mode: 0o700 })
      // mkdir leaves existing parents alone and is subject to the umask: the modes are set here.
      for (const path of [this.paths.accounts, accountDir(this.paths.accounts, agent, ''), dir]) await chmod(path, 0o700)
      return { ok: true, created: true }
    })
  }

  /**
   * Starts the agent's login command in a fresh tmux session (a leftover one is
   * replaced) with the account's home injected and the identity variables removed.
   */
  async login(request: CheckedRequestOf<'AccountLogin'>): Promise<Req<'AccountLoginResponse'>> {
    const agent = accountAgent(request.agent)
    const name = checkAccountName(request.name)
    await this.register({ agent: agent.name, name })
    const dir = accountDir(this.paths.accounts, agent, name)
    const session = loginSessionName(agent, name)
    const env = accountEnvironment(paneEnvironment(this.source, agent, this.config.get('session_env_passthrough')), agent, dir)
    const command = `${commandLineOf(agent.name, this.config.get('program_overrides'))} ${agent.loginArgs}`
    await this.tmux.killSessions([session])
    // The session ends with the flow, so a login terminal streamed to a browser says so;
    // a flow that fails keeps its words on screen until Enter, so the watcher reads why.
    const script = `${command} || { printf '\\n[the login exited with status %s; press Enter to close]' "$?"; read _; }`
    await this.tmux.newSession({ name: session, cwd: dir, env, command: ['/bin/sh', '-c', script], endsWithCommand: true })
    return {
      tmux_session: session,
      tmux_socket: this.tmux.socket,
      attach_command: `tmux -S ${shellQuote(this.tmux.socket)} attach -t ${shellQuote(sessionTarget(session))}`,
      logged_in: loggedIn(agent, dir),
    }
  }

  /** The tmux session of the account's running login, which the login terminal plane streams. */
  async loginTerminal(agentName: string, name: string): Promise<string> {
    const agent = accountAgent(agentName)
    const session = loginSessionName(agent, checkAccountName(name))
    if (!(await this.tmux.sessionNames()).includes(session)) {
      throw new NotFound(`no login is running for the ${agent.name} account ${quote(name)}; AccountLogin starts one`)
    }
    return session
  }
}
