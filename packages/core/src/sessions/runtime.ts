import { createHash } from 'node:crypto'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import which from 'which'
import { TabKind, type CheckedRequestOf, type ServicePaths } from '@svc/protocol'
import { agentOf, commandLineOf, takesAccounts } from '../agents/agent.js'
import { profileFor } from '../agents/profiles.js'
import { accountEnvironment, resolveAccount } from '../accounts/homes.js'
import type { Config } from '../config/config.js'
import type { ConfigResolver } from '../config/resolver.js'
import { Refused } from '../errors.js'
import { paneEnvironment } from '../infra/env.js'
import type { Tmux } from '../infra/tmux.js'
import type { EditorSecret } from './editor-secret.js'
import type { SessionRecord, TabRecord } from './record.js'
import type { SessionRef } from './table.js'
import type { Req } from '../wire.js'
import { commandWords } from '../infra/command-words.js'

/** Agent tab: `svc_<first 8 hex of repo_id>_<title>`. */
export function agentTmuxName(repoId: string, title: string): string {
  return `svc_${repoId.slice(0, 8)}_${title}`
}

/**
 * The cookies that carry an editor tab's password, which the daemon's proxy adds going
 * up: openvscode-server reads its connection token from `vscode-tkn`; code-server, given
 * a hashed password that is not argon2, compares `code-server-session` with it.
 */
export function editorCookies(password: string): string {
  return `vscode-tkn=${password}; code-server-session=${sha256(password)}`
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
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
  const executable = commandWords(command)[0] ?? ''
  return executable !== '' && which.sync(executable, { nothrow: true, path }) !== null
}

const EDITORS = ['code-server', 'openvscode-server'] as const

/** A free TCP port on 127.0.0.1 (free when asked; a caller binds it soon after). */
export function freePort(): Promise<number> {
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
 * Where a session runs: what the sessions actor asks of it once the session exists.
 * `local` runs it in tmux and a git worktree here; `hook` on a remote agent server
 * that the repository's launch_cmd started. Chosen per record.
 */
export interface Runtime {
  sendPrompt(request: CheckedRequestOf<'SendPrompt'>): Promise<Req<'SendPromptResponse'>>
  /** DeliverPrompt into the session, which exists (a missing title is created by the lifecycle). */
  deliverPrompt(ref: SessionRef, request: CheckedRequestOf<'DeliverPrompt'>): Promise<Req<'DeliverPromptResponse'>>
  preview(request: Req<'PreviewRequest'>): Promise<Req<'PreviewResponse'>>
  /** A poll-pause lease of `holder` on the session until `until` (ms since the epoch). */
  pauseStatusPoll(record: SessionRecord, holder: string, until: number): Promise<void>
  resumeStatusPoll(record: SessionRecord, holder: string): Promise<void>
  createTab(request: Req<'CreateTabRequest'>): Promise<Req<'CreateTabResponse'>>
  closeTab(request: Req<'CloseTabRequest'>): Promise<string>
  renameTab(request: CheckedRequestOf<'RenameTab'>): Promise<string>
  reorderTab(request: CheckedRequestOf<'ReorderTab'>): Promise<{ name: string; index: number }>
  kill(request: Req<'KillSessionRequest'>): Promise<void>
  archive(ref: SessionRef): Promise<Req<'ArchiveSessionResponse'>>
  restoreArchived(ref: SessionRef): Promise<string>
  restoreSession(request: Req<'RestoreSessionRequest'>): Promise<void>
  resumeFromLimit(ref: SessionRef): Promise<void>
  handoff(request: Req<'HandoffSessionRequest'>): Promise<Req<'HandoffSessionResponse'>>
}

/**
 * The local runtime's processes: what runs in tmux for a session: the agent (its command line resolved through the
 * program_overrides in force for its repository at every spawn, refused while that
 * repository's config is not trusted) and its shell, process and editor tabs, each with
 * the filtered environment.
 */
export class Panes {
  constructor(
    private readonly tmux: Tmux,
    private readonly config: Config,
    private readonly resolver: ConfigResolver,
    private readonly paths: ServicePaths,
    /** The daemon's own environment, which panes are filtered from. */
    private readonly source: NodeJS.ProcessEnv,
    private readonly secret: EditorSecret,
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

  /**
   * The command line the agent runs: refused (before anything is stopped, when callers
   * ask first) while the repository's config names commands it has not been trusted for.
   */
  async agentCommand(record: Pick<SessionRecord, 'repo_path' | 'program'>): Promise<string> {
    const { program_overrides } = await this.resolver.runnable(record.repo_path)
    return commandLineOf(record.program, program_overrides)
  }

  /** Starts the agent; the profile its screens are read with follows the command line it runs. */
  async spawnAgent(record: SessionRecord): Promise<void> {
    const commandLine = await this.agentCommand(record)
    const profile = profileFor(commandLine)
    if (profile) record.profile = profile.name
    else delete record.profile
    await this.replaceSession(agentTab(record).tmux_name as string, record, ['/bin/sh', '-c', `exec ${commandLine}`])
  }

  /** Starts a tab's process (web tabs have none); editor tabs get a fresh port. */
  async spawnTab(record: SessionRecord, tab: TabRecord): Promise<void> {
    if (tab.tmux_name === undefined) return
    const { command, env } = await this.tabCommand(record, tab)
    await this.replaceSession(tab.tmux_name, record, command, env)
  }

  /** A new tmux session; a leftover of the same name (a dead pane, say) is killed and replaced. */
  private async replaceSession(name: string, record: SessionRecord, command: string[], env: Record<string, string> = {}): Promise<void> {
    const spec = { name, cwd: record.path, env: { ...this.environment(record), ...env }, command }
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
    await this.stopTabs(record.tabs)
  }

  /** Ends the tabs' tmux sessions, and removes what an editor tab left on disk. */
  async stopTabs(tabs: readonly TabRecord[]): Promise<void> {
    await this.tmux.killSessions(tabs.flatMap((tab) => (tab.tmux_name ? [tab.tmux_name] : [])))
    await Promise.all(tabs.filter((tab) => tab.kind === TabKind.editor).map((tab) => rm(this.editorTokenFile(tab.id), { force: true })))
  }

  private editorTokenFile(tabId: string): string {
    return join(this.paths.home, 'editors', `${tabId}.token`)
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

  private async tabCommand(record: SessionRecord, tab: TabRecord): Promise<{ command: string[]; env?: Record<string, string> }> {
    if (tab.kind === TabKind.process) return { command: ['/bin/sh', '-c', tab.command ?? ''] }
    if (tab.kind === TabKind.editor) return this.editorCommand(record, tab)
    return { command: [this.source.SHELL || '/bin/sh', '-l'] }
  }

  /**
   * The editor listens on a loopback port and asks for a password only the daemon holds
   * (derived from the 0600 secret, so it survives a daemon restart while the editor runs
   * on in tmux): another local user reaching the port gets a login wall, and people reach
   * the editor through the daemon's web-tab proxy, which adds the password.
   */
  private async editorCommand(record: SessionRecord, tab: TabRecord): Promise<{ command: string[]; env?: Record<string, string> }> {
    const port = await freePort()
    tab.url = `http://127.0.0.1:${port}/`
    const password = this.secret.editorPassword(tab.id)
    const editor = this.editor()
    if (editor === 'code-server') {
      return {
        command: [editor, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'password', '--disable-telemetry', record.path],
        env: { HASHED_PASSWORD: sha256(password) },
      }
    }
    // A file, not an argument: command lines are visible to every user of the machine.
    const tokenFile = this.editorTokenFile(tab.id)
    await mkdir(join(this.paths.home, 'editors'), { recursive: true, mode: 0o700 })
    await writeFile(tokenFile, password, { mode: 0o600 })
    return {
      command: [editor, '--host', '127.0.0.1', '--port', String(port), '--connection-token-file', tokenFile, '--default-folder', record.path],
    }
  }
}
