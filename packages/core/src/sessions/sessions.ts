import type { Logger } from 'pino'
import type { CheckedRequestOf, ServicePaths } from '@svc/protocol'
import type { Config } from '../config/config.js'
import type { ConfigResolver } from '../config/resolver.js'
import type { Clock } from '../infra/clock.js'
import type { Repository } from '../infra/git.js'
import { Tmux } from '../infra/tmux.js'
import type { TaskGuard } from '../tasks-port.js'
import { AgentScreens, composerWaitMs } from './agent-screens.js'
import { gatePolicy } from './gate-policy.js'
import { Handoffs } from './handoff.js'
import { Lifecycle } from './lifecycle.js'
import { Observer } from './observer.js'
import { RootSessions } from './roots.js'
import { CreationJournal } from './reconcile.js'
import { Prompts } from './prompts.js'
import { EditorSecret } from './editor-secret.js'
import { stateOf, type SessionRecord, type TabRecord } from './record.js'
import { Panes, type Runtime } from './runtime.js'
import { LocalRuntime } from './local-runtime.js'
import { DockerEngine } from '../remote/docker-engine.js'
import { HookRuntime } from '../remote/hook-runtime.js'
import { hookTimeoutMs } from '../remote/hook-command.js'
import { RemoteTokens } from '../remote/tokens.js'
import { sshTimings } from '../remote/ssh-links.js'
import type { RemoteLink } from '../remote/link.js'
import { refuseHostsInUse } from '../remote/ssh-host-provider.js'
import { refuseEngineSwitch } from '../remote/docker-provider.js'
import { SessionStore } from './store.js'
import { SessionTable, type SessionFeedFactory, type SessionRef, type SettledListener } from './table.js'
import type { WireCache } from './wire-cache.js'
import { findTab } from './tabs.js'
import { suggestName } from './names.js'
import { LEASE_MS, Leases } from './leases.js'
import { streamedSession, terminalOf, type TabChoice, type TerminalTarget } from './terminal.js'
import type { Req } from '../wire.js'

export type { SessionRef, SettledListener } from './table.js'
export type { TabChoice, TerminalTarget } from './terminal.js'


export interface SessionsOptions {
  paths: ServicePaths
  config: Config
  /** Settings in force per repository (program, overrides, backend). */
  resolver: ConfigResolver
  log: Logger
  clock: Clock
  bootId: string
  /** The session feed (events/session-feed.ts), which hears of every change to the table. */
  feed: SessionFeedFactory
  /** The daemon's environment; panes see a filtered copy. */
  env: NodeJS.ProcessEnv
}

/**
 * The sessions actor: it owns every session record (its table). Operations on one
 * session run one at a time through its queue, and the poll loop never observes a
 * session while an operation holds it.
 */
export class Sessions {
  readonly tmux: Tmux
  /** Poll-pause leases: a person is at the session's terminal. */
  readonly leases = new Leases()
  /** Editor passwords and editor preview origins derive from it. */
  readonly editorSecret: EditorSecret
  /** The Docker Engine docker sessions run on (ListBackends asks it whether it answers). */
  readonly docker: DockerEngine
  private readonly table: SessionTable
  private readonly store: SessionStore
  private readonly panes: Panes
  /** Where each session runs: here, or on a remote agent server. */
  private readonly local: LocalRuntime
  private readonly hook: HookRuntime
  /** Creations (and hook restores) in flight, journaled. */
  private readonly creations: CreationJournal
  private readonly observer: Observer
  private readonly prompts: Prompts
  /** Creates sessions (and restores, archives, kills them for the local runtime). */
  readonly lifecycle: Lifecycle
  /** The sessions as clients see them: Snapshot answers and single session objects. */
  readonly wire: WireCache
  private readonly handoffs: Handoffs
  private readonly roots: RootSessions
  private readonly repositoryListeners: Array<(repo: Repository) => Promise<void>> = []
  private guard: TaskGuard | undefined

  constructor(options: SessionsOptions) {
    this.tmux = new Tmux(options.paths.tmuxSocket, options.env)
    this.store = new SessionStore(options.paths.sessionRecords, options.log)
    this.table = new SessionTable(this.store, options.clock, options.bootId, options.feed)
    this.wire = this.table.wire
    this.editorSecret = EditorSecret.open(options.paths.home)
    this.panes = new Panes(this.tmux, options.config, options.resolver, options.paths, options.env, this.editorSecret)
    const { table, panes } = this
    const screens = new AgentScreens(this.tmux, options.log, (record) => gatePolicy(options.resolver, record.repo_path), composerWaitMs(options.env))
    // An ssh:// engine's way is the hook runtime's (its masters and forwards), made below.
    this.docker = new DockerEngine({ host: () => options.config.get('docker.host'), route: (host) => this.hook.dockerHost(host), env: () => panes.subprocessEnv(), timeoutMs: hookTimeoutMs(options.env) })
    const creations = new CreationJournal(options.paths.creating, this.tmux, options.log, (intent) => this.hook.settle(intent))
    this.creations = creations
    this.hook = new HookRuntime({
      creations,
      table,
      resolver: options.resolver,
      config: options.config,
      sshDir: options.paths.remoteSsh,
      sshHostsDir: options.paths.sshHosts,
      dockerSshDir: options.paths.dockerSsh,
      sshTimings: sshTimings(options.env),
      tokens: new RemoteTokens(options.paths.remoteTokens),
      log: options.log,
      hookEnv: () => panes.subprocessEnv(),
      paneEnv: (record) => panes.environment({ ...record, account: '' }),
      home: options.paths.home,
      env: options.env,
      docker: this.docker,
      timeoutMs: hookTimeoutMs(options.env),
      bootId: options.bootId,
      targetedBy: (record) => this.targetedBy(record),
    })
    options.config.guard((next) => refuseHostsInUse(table.records.values(), next))
    options.config.guard((next, previous) => refuseEngineSwitch(table.records.values(), next, previous))
    this.observer = new Observer(
      {
        // Hook sessions run elsewhere: their remote observes them.
        records: () => [...table.records.values()].filter((record) => !record.remote),
        get: (id) => table.records.get(id),
        inFlight: (id) => table.inFlight(id),
        leased: (id) => this.leases.live(id),
        exclusive: (id, work) => table.ops.run(id, work),
        save: (record, durable) => table.save(record, durable),
        transition: (record, state) => table.transition(record, state),
        touch: (record) => table.touch(record),
        settled: (id) => table.emit(id, 'settled'),
        deliverInto: (record, prompt) => this.prompts.deliverInto(record, prompt),
        resumeFromLimit: (id) => this.prompts.resumeFromLimit({ id }),
        ticked: () => table.feed.tick(),
      },
      this.tmux,
      panes,
      screens,
      options,
    )
    this.prompts = new Prompts(table, this.tmux, this.observer, this.leases, screens, (request) => this.lifecycle.create(request))
    this.handoffs = new Handoffs(table, panes, this.observer, this.prompts, this.tmux, {
      dir: options.paths.handoffs,
      log: options.log,
    })
    this.lifecycle = new Lifecycle(table, panes, this.observer, this.prompts, {
      ...options,
      handoffs: this.handoffs,
      targetedBy: (record) => this.targetedBy(record),
      repository: async (repo) => {
        for (const listener of this.repositoryListeners) await listener(repo)
      },
      creations,
      hook: this.hook,
    })
    this.local = new LocalRuntime({ table, tmux: this.tmux, panes, leases: this.leases, lifecycle: this.lifecycle, prompts: this.prompts, handoffs: this.handoffs })
    this.roots = new RootSessions(table, this.lifecycle, options.config, options.resolver, options.log)
  }

  setGuard(guard: TaskGuard): void {
    this.guard = guard
  }

  onSettled(listener: SettledListener): void {
    this.table.onSettled(listener)
  }

  /** Called with each repository a session is created in (the project registry listens). */
  onRepository(listener: (repo: Repository) => Promise<void>): void {
    this.repositoryListeners.push(listener)
  }

  /** Ids of enabled tasks that target this session. */
  targetedBy(record: SessionRecord): string[] {
    return this.guard?.enabledTargeting(record.title, record.repo_id) ?? []
  }

  /** Loads the stored sessions and re-attaches them to what survived in tmux. */
  async restore(): Promise<void> {
    const records = await this.store.loadAll()
    await this.tmux.configureServer()
    await this.hook.restore(records.filter((record) => record.remote))
    await this.lifecycle.restore(
      records.filter((record) => !record.remote),
      new Set(await this.tmux.sessionNames()),
    )
    // Interrupted steps are settled now: what only they could have named is left over.
    await this.hook.sweep(new Set([...this.table.records.keys(), ...(await this.creations.pendingIds())]))
  }

  /** Starts or checks the root session of every project in root_agents; `rootOf` finds a project by repo id. */
  startRootSessions(rootOf: (id: string) => string | undefined): Promise<void> {
    return this.roots.start(rootOf)
  }

  startObserving(): void {
    this.table.feed.seed()
    this.observer.start()
    this.handoffs.deliverInterrupted()
  }

  async close(): Promise<void> {
    await this.observer.close()
    await this.hook.close()
    this.tmux.close()
  }

  /** The environment of git and other subprocesses the daemon runs: filtered as a pane's is. */
  subprocessEnv(): NodeJS.ProcessEnv {
    return this.panes.subprocessEnv()
  }

  // ---------------------------------------------------------------- queries

  suggestName(): string {
    return suggestName(new Set([...this.table.records.values()].map((record) => record.title)))
  }

  ofRepository(repoId: string): SessionRecord[] {
    return this.table.ofRepository(repoId)
  }

  isSettled(id: string): boolean {
    const record = this.table.records.get(id)
    return record !== undefined && !this.table.inFlight(id) && stateOf(record) === 'ready'
  }

  targetState(title: string, repoId: string): 'missing' | 'live' | 'archived' | 'archiving' {
    const record = this.table.inRepo(repoId, title)
    if (!record) return 'missing'
    if (this.table.archiving.has(record.id)) return 'archiving'
    return stateOf(record) === 'archived' ? 'archived' : 'live'
  }

  // ---------------------------------------------------------------- runtimes

  /**
   * The runtime of the session a request names: the one place a session's backend is
   * looked at. What a route asks of one session, its runtime does.
   */
  runtimeOf(ref: SessionRef): Runtime {
    return this.table.find(ref).remote ? this.hook : this.local
  }

  // ---------------------------------------------------------------- prompts

  deliverPromptTo(request: CheckedRequestOf<'DeliverPrompt'>): Promise<Req<'DeliverPromptResponse'>> {
    return this.prompts.deliverTo(request, (ref) => this.runtimeOf(ref).deliverPrompt(ref, request))
  }

  // ---------------------------------------------------------------- tabs

  /** A tab by its session id and stable tab id, as the web-tab proxy names it. */
  tabById(sessionId: string, tabId: string): TabRecord | undefined {
    return this.table.records.get(sessionId)?.tabs.find((tab) => tab.id === tabId)
  }

  /** A tab by its session id and stable tab id, where an unknown session or tab is a refusal. */
  tabOf(sessionId: string, tabId: string): TabRecord {
    const record = this.table.find({ id: sessionId })
    return findTab(record.tabs, { tab_id: tabId }, record.title).tab
  }

  /** Every tab with its session id: the preview listener finds a tab by its origin among them. */
  *allTabs(): Generator<{ sessionId: string; tab: TabRecord }> {
    for (const record of this.table.records.values()) for (const tab of record.tabs) yield { sessionId: record.id, tab }
  }

  // ---------------------------------------------------------------- terminals

  /** The terminal a stream subscribes to: `{id}` is a session id or a title; a tab by ordinal or id. */
  terminal(id: string, repoId: string | undefined, tab: TabChoice): TerminalTarget {
    return terminalOf(streamedSession(this.table, id, repoId), tab)
  }

  /** Where the stream route reads a session's terminal: undefined for a local one, else its remote. */
  remoteLink(id: string, repoId: string | undefined): RemoteLink | undefined {
    const record = streamedSession(this.table, id, repoId)
    return record.remote ? this.hook.linkOf(record) : undefined
  }

  /**
   * Takes or renews a lease on the session; it lasts LEASE_MS. It is `holder`'s, or
   * without one `connection`'s: the caller's connection, so an older client that names no
   * holder renews and ends its own lease and no other.
   */
  async pauseStatusPoll(request: Req<'StatusPollLeaseRequest'>, connection: string): Promise<Date> {
    const until = Date.now() + LEASE_MS
    const record = this.table.find(request)
    await this.runtimeOf(request).pauseStatusPoll(record, leaseHolder(request, connection), until)
    return new Date(until)
  }

  async resumeStatusPoll(request: Req<'StatusPollLeaseRequest'>, connection: string): Promise<void> {
    await this.runtimeOf(request).resumeStatusPoll(this.table.find(request), leaseHolder(request, connection))
  }
}

/** Named holders and connections are kept apart, so no holder name can end a connection's lease. */
function leaseHolder(request: Req<'StatusPollLeaseRequest'>, connection: string): string {
  return request.holder ? `holder ${request.holder}` : `connection ${connection}`
}
