import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { Static } from 'typebox'
import { TabKind, type DeliveryStatus, type ServicePaths, excerpt, quote } from '@svc/protocol'
import type * as wire from '@svc/protocol'
import { agentOf } from '../agents.js'
import type { Config } from '../config/config.js'
import { InvalidRequest, MutationCommitted, NotFound, Refused } from '../errors.js'
import type { Clock } from '../infra/clock.js'
import { resolveRepository, type Repository } from '../infra/git.js'
import { Tmux } from '../infra/tmux.js'
import { isLoopbackUrl } from '../net.js'
import { KeyedQueue } from '../serial.js'
import type { TaskGuard } from '../tasks-port.js'
import { backendOf } from './catalog.js'
import { deliverPrompt } from './delivery.js'
import { idleReason } from './idle.js'
import { selectSessions, type SnapshotFilters } from './query.js'
import { Observer } from './observer.js'
import { encodeSession, isLive, setState, stateOf, type SessionRecord, type SessionWire, type State } from './record.js'
import { agentTab, agentTmuxName, Runtime } from './runtime.js'
import { SessionStore } from './store.js'
import { closeTab, moveTab, openTab, renameTab, tabId, tabKindOf } from './tabs.js'
import { allocateTitle } from './titles.js'
import { suggestName } from './names.js'
import { CreationJournal, type CreationIntent } from './reconcile.js'
import { addWorktree, currentBranch, deleteBranch, freePath, moveWorktree, planWorktree, removeWorktree, worktreeHome } from './worktree.js'

type Req<T extends keyof typeof wire> = Static<(typeof wire)[T]>

export interface SessionRef {
  title?: string
  repo_id?: string
  id?: string
}

export interface SessionsOptions {
  paths: ServicePaths
  config: Config
  log: Logger
  clock: Clock
  bootId: string
  /** The daemon's environment; panes see a filtered copy. */
  env: NodeJS.ProcessEnv
}

export type SettledListener = (id: string, how: 'settled' | 'removed') => void

/** The record was saved before `error` struck: the operation must not be retried. */
function committed(done: string, error: unknown): MutationCommitted {
  return new MutationCommitted(`${done}, but ${(error as Error).message}`)
}

/** The prompt that resumes an agent after a usage limit. */
const RESUME_PROMPT = 'continue'
/** How long a new agent gets to draw something before its first prompt is pasted anyway. */
const STARTUP_WAIT_MS = 10_000

/**
 * The sessions actor: it owns every session record. Operations on one session run one
 * at a time through its queue, git work on one repository through the repository's
 * queue, and the poll loop never observes a session while an operation holds it.
 */
export class Sessions {
  readonly tmux: Tmux
  private readonly records = new Map<string, SessionRecord>()
  private readonly ops = new KeyedQueue()
  private readonly repos = new KeyedQueue()
  /** DeliverPrompt per repository and title, so two deliveries cannot both create the session. */
  private readonly deliveries = new KeyedQueue()
  /** Sessions being created: not yet in their queue, already in the map. */
  private readonly creating = new Set<string>()
  private readonly archiving = new Set<string>()
  private readonly settledListeners: SettledListener[] = []
  /** Bumped by every save; with the lifecycle and in-flight state it keys the wire cache. */
  private readonly revisions = new Map<string, number>()
  private readonly wire = new Map<string, { stamp: string; json: string }>()
  private readonly repositoryListeners: Array<(repo: Repository) => Promise<void>> = []
  private readonly store: SessionStore
  /** CreateSession's intents, so a creation the daemon died in is undone at the next start. */
  private readonly creations: CreationJournal
  private readonly runtime: Runtime
  private readonly observer: Observer
  private guard: TaskGuard | undefined

  constructor(private readonly options: SessionsOptions) {
    this.tmux = new Tmux(options.paths.tmuxSocket, options.env)
    this.store = new SessionStore(join(options.paths.home, 'sessions'), options.log)
    this.runtime = new Runtime(this.tmux, options.config, options.paths, options.env)
    this.creations = new CreationJournal(join(options.paths.home, 'creating'), this.tmux, options.log)
    this.observer = new Observer(
      {
        records: () => this.records.values(),
        get: (id) => this.records.get(id),
        inFlight: (id) => this.inFlight(id),
        exclusive: (id, work) => this.ops.run(id, work),
        save: (record, durable) => this.save(record, durable),
        transition: (record, state) => this.transition(record, state),
        touch: (record) => this.touch(record),
        settled: (id) => this.emit(id, 'settled'),
        deliverInto: (record, prompt) => this.deliverInto(record, prompt),
        resumeFromLimit: (id) => this.resumeFromLimit({ id }),
      },
      this.tmux,
      this.runtime,
      options,
    )
  }

  setGuard(guard: TaskGuard): void {
    this.guard = guard
  }

  onSettled(listener: SettledListener): void {
    this.settledListeners.push(listener)
  }

  /** Called with each repository a session is created in (the project registry listens). */
  onRepository(listener: (repo: Repository) => Promise<void>): void {
    this.repositoryListeners.push(listener)
  }

  /** Ids of enabled tasks that target this session. */
  targetedBy(record: SessionRecord): string[] {
    return this.guard?.enabledTargeting(record.title, record.repo_id) ?? []
  }

  private get now(): Date {
    return this.options.clock.now()
  }

  private emit(id: string, how: 'settled' | 'removed'): void {
    for (const listener of this.settledListeners) listener(id, how)
  }

  private inFlight(id: string): boolean {
    return this.creating.has(id) || this.ops.busy(id)
  }

  /** Persists a record; every change to one must come through here (the wire cache relies on it). */
  private save(record: SessionRecord, durable = true): Promise<void> {
    this.revisions.set(record.id, (this.revisions.get(record.id) ?? 0) + 1)
    return this.store.save(record, durable)
  }

  private forget(id: string): void {
    this.records.delete(id)
    this.revisions.delete(id)
    this.wire.delete(id)
  }

  private touch(record: SessionRecord): void {
    record.updated_at = this.now.toISOString()
  }

  /** Applies a lifecycle state; `updated_at` moves only when something really changed. */
  private transition(record: SessionRecord, state: State): boolean {
    const changed = setState(record, state)
    if (changed) this.touch(record)
    return changed
  }

  // ---------------------------------------------------------------- restore

  /**
   * Warm-up: sessions whose tmux session survived are re-attached untouched; live ones
   * whose tmux session is gone are respawned; archived ones stay inert.
   */
  async restore(): Promise<void> {
    for (const record of await this.store.loadAll()) this.records.set(record.id, record)
    await this.creations.reconcile(this.records, this.runtime.subprocessEnv())
    const alive = new Set(await this.tmux.sessionNames())
    for (const record of this.records.values()) {
      const state = stateOf(record)
      if (state === 'deleting') {
        // A kill or archive was interrupted: the runtime may be half gone.
        this.transition(record, 'dead')
        await this.save(record)
      } else if (state === 'lost' && !record.lost_restore_failure) {
        this.observer.lost(record)
      } else if (isLive(record) || state === 'loading') {
        await this.reattach(record, alive)
      }
    }
    this.options.log.info({ sessions: this.records.size }, 'sessions restored')
  }

  private async reattach(record: SessionRecord, alive: ReadonlySet<string>): Promise<void> {
    try {
      if (!alive.has(agentTab(record).tmux_name as string)) {
        await this.runtime.spawnAll(record)
        delete record.last_pane_churn_at
        this.transition(record, 'running')
        await this.save(record)
        return
      }
      const missing = record.tabs.slice(1).filter((tab) => tab.tmux_name && !alive.has(tab.tmux_name))
      for (const tab of missing) await this.runtime.spawnTab(record, tab)
      const wasLoading = stateOf(record) === 'loading'
      if (wasLoading) this.transition(record, 'running')
      if (wasLoading || missing.length > 0) await this.save(record)
    } catch (error) {
      this.options.log.error({ err: error, session: record.title }, 'could not respawn session at start')
      this.transition(record, 'lost')
      await this.save(record)
      this.observer.lost(record)
    }
  }

  startObserving(): void {
    this.observer.start()
  }

  close(): Promise<void> {
    return this.observer.close()
  }

  // ---------------------------------------------------------------- queries

  /**
   * The Snapshot response as JSON text. Each session's JSON is cached until it is saved
   * again or its lifecycle or in-flight state moves, so a large fleet costs a join.
   */
  snapshotJson(filters: SnapshotFilters): string {
    const instances = selectSessions(this.records.values(), filters).map((record) => this.wireJson(record))
    return `{"instances":[${instances.join(',')}],"boot_id":${JSON.stringify(this.options.bootId)}}`
  }

  private wireJson(record: SessionRecord): string {
    const stamp = `${this.revisions.get(record.id) ?? 0}:${record.status}:${record.liveness ?? 0}:${this.inFlight(record.id)}`
    const cached = this.wire.get(record.id)
    if (cached?.stamp === stamp) return cached.json
    const json = JSON.stringify(this.describe(record))
    this.wire.set(record.id, { stamp, json })
    return json
  }

  /** The session object as clients see it. */
  describe(record: SessionRecord): SessionWire {
    return encodeSession(record, this.options.bootId, idleReason(record, this.inFlight(record.id)), isLoopbackUrl)
  }

  suggestName(): string {
    return suggestName(new Set([...this.records.values()].map((record) => record.title)))
  }

  /** The session a request names: by id, else by title (and repo_id when titles repeat). */
  find(ref: SessionRef): SessionRecord {
    if (ref.id) {
      const record = this.records.get(ref.id)
      if (!record) throw new NotFound(`no session with id ${excerpt(ref.id)}`)
      return record
    }
    if (!ref.title) throw new InvalidRequest('title or id is required')
    const matches = [...this.records.values()].filter(
      (record) => record.title === ref.title && (!ref.repo_id || record.repo_id === ref.repo_id),
    )
    if (matches.length === 0) {
      throw new NotFound(`no session titled ${quote(ref.title)}${ref.repo_id ? ` in repository ${ref.repo_id}` : ''}`)
    }
    if (matches.length > 1) {
      throw new InvalidRequest(
        `several sessions are titled ${quote(ref.title)}; pass repo_id (one of ${matches.map((m) => m.repo_id).join(', ')})`,
      )
    }
    return matches[0] as SessionRecord
  }

  private inRepo(repoId: string, title: string): SessionRecord | undefined {
    return [...this.records.values()].find((record) => record.repo_id === repoId && record.title === title)
  }

  ofRepository(repoId: string): SessionRecord[] {
    return [...this.records.values()].filter((record) => record.repo_id === repoId)
  }

  isSettled(id: string): boolean {
    const record = this.records.get(id)
    return record !== undefined && !this.inFlight(id) && stateOf(record) === 'ready'
  }

  targetState(title: string, repoId: string): 'missing' | 'live' | 'archived' | 'archiving' {
    const record = this.inRepo(repoId, title)
    if (!record) return 'missing'
    if (this.archiving.has(record.id)) return 'archiving'
    return stateOf(record) === 'archived' ? 'archived' : 'live'
  }

  // ---------------------------------------------------------------- lifecycle

  /** Runs `work` on one session, alone: no other operation and no observation interleaves. */
  private operate<T>(ref: SessionRef, work: (record: SessionRecord) => Promise<T>): Promise<T> {
    const id = this.find(ref).id
    return this.ops.run(id, async () => {
      const record = this.records.get(id)
      if (!record) throw new NotFound(`session ${ref.title ?? id} was removed`)
      return work(record)
    })
  }

  async create(request: Req<'CreateSessionRequest'>): Promise<SessionRecord> {
    if (!request.repo_path) throw new InvalidRequest('repo_path is required')
    const backend = backendOf(request)
    const program = (request.program ?? '').trim() || this.options.config.get('default_program')
    const account = request.account ?? ''
    if (account) this.runtime.accountHome(agentOf(program), account)
    const repo = await resolveRepository(request.repo_path)
    for (const listener of this.repositoryListeners) await listener(repo)
    const record = await this.repos.run(repo.id, async () => {
      const taken = new Set(this.ofRepository(repo.id).map((existing) => existing.title))
      const title = allocateTitle(request, taken)
      const env = this.runtime.subprocessEnv()
      const now = this.now.toISOString()
      const id = randomBytes(8).toString('hex')
      const tmuxName = agentTmuxName(repo.id, title)
      const worktree = request.in_place
        ? undefined
        : await planWorktree(repo.root, title, `${this.options.config.get('branch_prefix')}${title}`, env)
      const intent: CreationIntent = { id, title, repo_path: repo.root, tmux_name: tmuxName, ...(worktree ? { worktree } : {}) }
      await this.creations.begin(intent)
      const place = worktree ?? { path: repo.root, branch: await currentBranch(repo.root, env), branch_created: false }
      const created: SessionRecord = {
        id,
        title,
        repo_id: repo.id,
        repo_path: repo.root,
        path: place.path,
        branch: place.branch,
        branch_created: place.branch_created,
        program,
        account,
        backend,
        in_place: request.in_place === true,
        created_at: now,
        updated_at: now,
        status: 0,
        tabs: [{ id: tabId(), kind: TabKind.agent, name: 'agent', tmux_name: tmuxName }],
      }
      setState(created, 'loading')
      try {
        if (worktree) await addWorktree(repo.root, worktree, env)
        this.records.set(id, created)
        this.creating.add(id)
        await this.runtime.spawnAgent(created)
        setState(created, 'running')
        await this.save(created)
      } catch (error) {
        this.forget(id)
        this.creating.delete(id)
        // What cannot be undone now stays in the journal, for the next start.
        await this.creations.undo(intent, this.records.values(), env).catch(() => {})
        throw error
      }
      await this.creations.end(id)
      return created
    })
    try {
      if (request.prompt) {
        await this.waitForFirstDraw(record)
        await this.ops.run(record.id, () => this.deliverInto(record, request.prompt as string))
      }
    } catch (error) {
      throw committed(`session "${record.title}" was created`, error)
    } finally {
      this.creating.delete(record.id)
    }
    return record
  }

  /** A fresh agent needs a moment to draw its input before a paste can land. */
  private async waitForFirstDraw(record: SessionRecord): Promise<void> {
    const name = agentTab(record).tmux_name as string
    const deadline = Date.now() + STARTUP_WAIT_MS
    while (Date.now() < deadline) {
      const text = (await this.tmux.capture([name])).get(name)
      if (text === undefined || text.trim() !== '') return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  private async dropWorktree(record: SessionRecord): Promise<void> {
    const env = this.runtime.subprocessEnv()
    await this.repos.run(record.repo_id, async () => {
      await removeWorktree(record.repo_path, record.archived_path ?? record.path, env)
      if (record.branch_created) await deleteBranch(record.repo_path, record.branch, env)
    })
  }

  /** Tears a session down completely: tmux, worktree, the branch the daemon created, the record. */
  kill(ref: SessionRef): Promise<void> {
    return this.operate(ref, async (record) => {
      this.transition(record, 'deleting')
      await this.runtime.teardown(record)
      this.forgetRuntime(record)
      try {
        if (!record.in_place) await this.dropWorktree(record)
      } catch (error) {
        this.transition(record, 'dead')
        await this.save(record)
        throw committed(`session "${record.title}" was stopped and marked dead`, error)
      }
      await this.store.remove(record.id)
      this.forget(record.id)
      this.emit(record.id, 'removed')
    })
  }

  /** Refuses to archive a session that enabled tasks target or that is archived already. */
  private refuseArchiving(record: SessionRecord): void {
    const targeting = this.targetedBy(record)
    if (targeting.length > 0) {
      throw new Refused(
        `enabled task(s) ${targeting.join(', ')} target session "${record.title}"; disable them before archiving it`,
      )
    }
    if (stateOf(record) === 'archived') throw new Refused(`session "${record.title}" is already archived`)
  }

  /** Stops tmux, moves the worktree to archived/<repo_id>/<title>, keeps the record. */
  archive(ref: SessionRef): Promise<string> {
    const record = this.find(ref)
    // Refused before any mutation, and marked so no task is enabled on it while it waits.
    this.refuseArchiving(record)
    this.archiving.add(record.id)
    const archived = this.operate(ref, async (current) => {
      // Again in the queue: an archive or a task enabled while this one waited.
      this.refuseArchiving(current)
      // An archive queued ahead of this one cleared the mark as it finished.
      this.archiving.add(current.id)
      this.transition(current, 'deleting')
      await this.runtime.teardown(current)
      this.forgetRuntime(current)
      let path = current.path
      if (!current.in_place) {
        path = await this.repos.run(current.repo_id, async () => {
          const target = freePath(join(this.options.paths.archived, current.repo_id, current.title))
          try {
            await moveWorktree(current.repo_path, current.path, target, this.runtime.subprocessEnv())
          } catch (error) {
            // The runtime is already gone; the worktree stays where it was.
            this.transition(current, 'dead')
            await this.save(current)
            throw committed(`session "${current.title}" was stopped and marked dead`, error)
          }
          return target
        })
      }
      current.archived_path = path
      this.transition(current, 'archived')
      await this.save(current)
      return path
    })
    return archived.finally(() => this.archiving.delete(record.id))
  }

  /** Moves an archived worktree back next to the repository and respawns the agent. */
  restoreArchived(ref: SessionRef): Promise<string> {
    return this.operate(ref, async (record) => {
      if (stateOf(record) !== 'archived') throw new Refused(`session "${record.title}" is not archived`)
      return this.unarchive(record)
    })
  }

  private async unarchive(record: SessionRecord): Promise<string> {
    if (!record.in_place && record.archived_path) {
      const from = record.archived_path
      const to = await this.repos.run(record.repo_id, async () => {
        const destination = worktreeHome(record.repo_path, record.title)
        await moveWorktree(record.repo_path, from, destination, this.runtime.subprocessEnv())
        return destination
      })
      record.path = to
    }
    delete record.archived_path
    await this.replaceRuntime(record)
    return record.path
  }

  /** Respawns agent and tabs; the old runtime's traces are cleared. */
  private async replaceRuntime(record: SessionRecord): Promise<void> {
    await this.runtime.teardown(record)
    this.forgetRuntime(record)
    await this.runtime.spawnAll(record)
    delete record.last_pane_churn_at
    delete record.lost_restore_failure
    this.transition(record, 'running')
    this.touch(record)
    await this.save(record)
  }

  private forgetRuntime(record: SessionRecord): void {
    this.observer.forget(record)
  }

  /** Restores an archived, lost or dead session (or, with force_reap, replaces a live one's runtime). */
  restoreSession(request: Req<'RestoreSessionRequest'>): Promise<void> {
    if (request.expected_daemon_boot_id && request.expected_daemon_boot_id !== this.options.bootId) {
      throw new Refused(
        `the daemon restarted (boot id ${this.options.bootId}, expected ${request.expected_daemon_boot_id}); refresh with Snapshot and retry`,
      )
    }
    return this.operate(request, async (record) => {
      const state = stateOf(record)
      if (state === 'archived') {
        await this.unarchive(record)
        return
      }
      if (state !== 'lost' && state !== 'dead' && !request.force_reap) {
        throw new Refused(`session "${record.title}" is ${state ?? 'busy'}; pass force_reap to replace its runtime`)
      }
      await this.replaceRuntime(record)
    })
  }

  // ---------------------------------------------------------------- prompts

  private liveOrRefuse(record: SessionRecord): void {
    if (!isLive(record)) {
      const state = stateOf(record) ?? 'busy'
      const hint = state === 'archived' ? 'restore it with RestoreArchived first' : 'restore it with RestoreSession first'
      throw new Refused(`session "${record.title}" is ${state}; ${hint}`)
    }
  }

  private async deliverInto(record: SessionRecord, prompt: string): Promise<DeliveryStatus> {
    const name = agentTab(record).tmux_name as string
    const { status, screen } = await deliverPrompt(this.tmux, name, prompt)
    await this.observer.rebase(record, screen)
    record.last_prompt_attempt_at = this.now.toISOString()
    record.last_prompt_delivery_status = status
    this.touch(record)
    await this.save(record)
    return status
  }

  sendPrompt(request: Req<'SendPromptRequest'>): Promise<DeliveryStatus> {
    if (!request.prompt) throw new InvalidRequest('prompt is required')
    return this.operate(request, async (record) => {
      this.liveOrRefuse(record)
      return this.deliverInto(record, request.prompt as string)
    })
  }

  /** Delivers into the titled session, creating it (`started`) when the repository has none. */
  async deliverPromptTo(request: Req<'DeliverPromptRequest'>): Promise<Req<'DeliverPromptResponse'>> {
    if (!request.title) throw new InvalidRequest('title is required')
    if (!request.repo_path) throw new InvalidRequest('repo_path is required')
    if (!request.prompt) throw new InvalidRequest('prompt is required')
    const repo = await resolveRepository(request.repo_path)
    // The look-up and the create happen alone, or two deliveries would both create.
    return this.deliveries.run(`${repo.id}/${request.title}`, async () => {
      const existing = this.inRepo(repo.id, request.title as string)
      if (!existing) {
        const { title, repo_path, program, prompt } = request
        const created = await this.create({ title, repo_path, program, prompt })
        return { status: 'started', ...(created.last_prompt_delivery_status ? { delivery: created.last_prompt_delivery_status } : {}) }
      }
      return this.operate({ id: existing.id }, async (record) => {
        this.liveOrRefuse(record)
        if (request.defer_while_attached && (await this.attached(record))) {
          record.pending_prompts = [...(record.pending_prompts ?? []), request.prompt as string]
          await this.save(record)
          return { status: 'sent', deferred: true }
        }
        return { status: 'sent', delivery: await this.deliverInto(record, request.prompt as string) }
      })
    })
  }

  private async attached(record: SessionRecord): Promise<boolean> {
    const name = agentTab(record).tmux_name as string
    return (await this.tmux.poll([])).get(name)?.attached === true
  }

  resumeFromLimit(ref: SessionRef): Promise<void> {
    return this.operate(ref, async (record) => {
      if (stateOf(record) !== 'limit-reached') throw new Refused(`session "${record.title}" is not at a usage limit`)
      this.observer.resumed(record.id)
      await this.deliverInto(record, RESUME_PROMPT)
      this.transition(record, 'running')
      await this.save(record)
    })
  }

  // ---------------------------------------------------------------- tabs

  /** A change to one session's tab roster, alone in its queue; saved only when the roster really changed. */
  private changeTabs<T>(ref: SessionRef, change: (record: SessionRecord) => Promise<T> | T): Promise<T> {
    return this.operate(ref, async (record) => {
      const before = JSON.stringify(record.tabs)
      const result = await change(record)
      if (JSON.stringify(record.tabs) !== before) {
        this.touch(record)
        await this.save(record)
      }
      return result
    })
  }

  createTab(request: Req<'CreateTabRequest'>): Promise<Req<'CreateTabResponse'>> {
    const kind = tabKindOf(request)
    return this.changeTabs(request, (record) => {
      this.liveOrRefuse(record)
      return openTab(record, kind, request, this.runtime)
    })
  }

  closeTab(request: Req<'CloseTabRequest'>): Promise<string> {
    return this.changeTabs(request, (record) => closeTab(record, request, this.tmux))
  }

  renameTab(request: Req<'RenameTabRequest'>): Promise<string> {
    return this.changeTabs(request, (record) => renameTab(record, request))
  }

  reorderTab(request: Req<'ReorderTabRequest'>): Promise<{ name: string; index: number }> {
    return this.changeTabs(request, (record) => moveTab(record, request))
  }
}
