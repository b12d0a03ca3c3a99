import { createServer } from 'node:net'
import which from 'which'
import { TabKind, type ServicePaths } from '@svc/protocol'
import { agentOf, commandLineOf, takesAccounts } from '../agents.js'
import { accountEnvironment, resolveAccount } from '../accounts/homes.js'
import type { Config } from '../config/config.js'
import { Refused } from '../errors.js'
import { paneEnvironment } from '../infra/env.js'
import type { Tmux } from '../infra/tmux.js'
import type { SessionRecord, TabRecord } from './record.js'

/** Agent tab: `svc_<first 8 hex of repo_id>_<title>`. */
export function agentTmuxName(repoId: string, title: string): string {
  return `svc_${repoId.slice(0, 8)}_${title}`
}

/** Other tabs: `<agent tmux name>__<tab name>`. */
export function tabTmuxName(agentName: string, tabName: string): string {
  return `${agentName}__${tabName}`
}

export function agentTab(record: Pick<SessionRecord, 'tabs'>): TabRecord {
  return record.tabs[0] as TabRecord
}

/** Whether `command`'s executable is on PATH. */
export function onPath(command: string, path: string | undefined): boolean {
  const executable = command.trim().split(/\s+/)[0] ?? ''
  return executable !== '' && which.sync(executable, { nothrow: true, path }) !== null
}

const EDITORS = ['code-server', 'openvscode-server'] as const

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/**
 * What runs in tmux for a session: the agent (its command line resolved through
 * program_overrides at every spawn) and its shell, process and editor tabs, each with
 * the filtered environment.
 */
export class Runtime {
  constructor(
    private readonly tmux: Tmux,
    private readonly config: Config,
    private readonly paths: ServicePaths,
    /** The daemon's own environment, which panes are filtered from. */
    private readonly source: NodeJS.ProcessEnv,
  ) {}

  /** The environment of git and other local subprocesses the daemon runs for a session. */
  subprocessEnv(): NodeJS.ProcessEnv {
    return paneEnvironment(this.source, undefined, this.config.get('session_env_passthrough'))
  }

  /** The credential home of `account` for the agent `program` runs; refused when they do not belong together. */
  accountHome(program: string, account: string): string {
    return resolveAccount(this.paths.accounts, agentOf(program), program, account)
  }

  /** A pane's environment: filtered, and scoped to the session's account when it has one. */
  environment(record: Pick<SessionRecord, 'id' | 'title' | 'program' | 'account'>): Record<string, string> {
    const agent = agentOf(record.program)
    let env = paneEnvironment(this.source, agent, this.config.get('session_env_passthrough'))
    if (record.account && takesAccounts(agent)) env = accountEnvironment(env, agent, this.accountHome(record.program, record.account))
    return { ...env, SVC_SESSION_ID: record.id, SVC_SESSION_TITLE: record.title }
  }

  async spawnAgent(record: SessionRecord): Promise<void> {
    const commandLine = commandLineOf(record.program, this.config.get('program_overrides'))
    await this.replaceSession(agentTab(record).tmux_name as string, record, ['/bin/sh', '-c', `exec ${commandLine}`])
  }

  /** Starts a tab's process (web tabs have none); editor tabs get a fresh port. */
  async spawnTab(record: SessionRecord, tab: TabRecord): Promise<void> {
    if (tab.tmux_name === undefined) return
    await this.replaceSession(tab.tmux_name, record, await this.tabCommand(record, tab))
  }

  /** A new tmux session; a leftover of the same name (a dead pane, say) is killed and replaced. */
  private async replaceSession(name: string, record: SessionRecord, command: string[]): Promise<void> {
    const spec = { name, cwd: record.path, env: this.environment(record), command }
    try {
      await this.tmux.newSession(spec)
    } catch (error) {
      if (!/duplicate session/.test((error as Error).message)) throw error
      await this.tmux.killSessions([name])
      await this.tmux.newSession(spec)
    }
  }

  async spawnAll(record: SessionRecord): Promise<void> {
    await this.spawnAgent(record)
    for (const tab of record.tabs.slice(1)) await this.spawnTab(record, tab)
  }

  async teardown(record: SessionRecord): Promise<void> {
    await this.tmux.killSessions(record.tabs.flatMap((tab) => (tab.tmux_name ? [tab.tmux_name] : [])))
  }

  /** The editor server on PATH, or a refusal that says what to install. */
  editor(): (typeof EDITORS)[number] {
    const found = EDITORS.find((name) => onPath(name, this.source.PATH))
    if (!found) {
      throw new Refused(
        'editor tabs need code-server or openvscode-server on the daemon\'s PATH; install one (for example "npm install -g code-server") and restart the daemon',
      )
    }
    return found
  }

  private async tabCommand(record: SessionRecord, tab: TabRecord): Promise<string[]> {
    if (tab.kind === TabKind.process) return ['/bin/sh', '-c', tab.command ?? '']
    if (tab.kind === TabKind.editor) {
      const port = await freePort()
      tab.url = `http://127.0.0.1:${port}/`
      const editor = this.editor()
      return editor === 'code-server'
        ? [editor, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', record.path]
        : [editor, '--host', '127.0.0.1', '--port', String(port), '--without-connection-token', '--default-folder', record.path]
    }
    return [this.source.SHELL || '/bin/sh', '-l']
  }
}
