import { randomBytes } from 'node:crypto'
import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { Logger } from 'pino'
import type { Static } from 'typebox'
import type { CheckedRequestOf, ListOnCompleteResponse } from '@svc/protocol'
import { excerpt } from '@svc/protocol'
import type { Config } from '../config/config.js'
import { CorruptFile, InvalidRequest, MutationCommitted, NotFound, Refused } from '../errors.js'
import type { Clock } from '../infra/clock.js'
import { SerialQueue } from '../serial.js'
import type { SessionPort, TaskGuard } from '../tasks-port.js'
import { paneEnvironment } from '../infra/env.js'
import { Announcements, turnMsFrom, type TaskFeedFactory } from './announcements.js'
import { Automation } from './automation.js'
import { WatchLedger } from './ledger.js'
import { EncodedTasks } from './encoded.js'
import { MISSED_CAP } from './health.js'
import { MissedOccurrences } from './missed.js'
import { OutcomeWriter } from './outcomes.js'
import { EMPTY_DOCUMENT, kindOf, ON_COMPLETE, TASK_DEFAULTS, type TaskDocument, type TaskRecord, type TaskWire } from './record.js'
import { Runs } from './runs.js'
import { TaskStore, type Loaded } from './store.js'
import { actorOf, checkExpect, checkTask, editsOf, merged, resolveProject, type ExpectT } from './validate.js'

const AUDIT_LENGTH = 20

/** RemoveTask, RestartTask and TriggerTask name a task alike. */
type ById = CheckedRequestOf<'RemoveTask'>

export interface TasksOptions {
  /** tasks.json; its lock is tasks.json.lock beside it. */
  path: string
  config: Config
  log: Logger
  clock: Clock
  /** The daemon's environment; watch commands see the same filtered copy as panes. */
  env: NodeJS.ProcessEnv
  /** The task feed (events/task-feed.ts), which hears of every change to the list. */
  feed: TaskFeedFactory
}

/**
 * The task engine: the store, the operations on it, and the automation that runs tasks.
 * Writes meet in the store's batches; reconciles, restarts and triggers go through one
 * queue; reads serve the last loaded document (refreshed when another process changed
 * the files) without waiting for either.
 */
export class Tasks implements TaskGuard {
  private readonly store: TaskStore
  private readonly ops = new SerialQueue()
  private readonly outcomes: OutcomeWriter
  private readonly runs: Runs
  private readonly automation: Automation
  private readonly ledger: WatchLedger
  private loaded: Loaded = { doc: structuredClone(EMPTY_DOCUMENT), version: 'absent' }
  /** Set while tasks.json cannot be used: every operation reports it until the file is fixed. */
  private broken: CorruptFile | undefined
  /** Tasks being committed with an enabled target, so ArchiveSession sees them before they land. */
  private readonly claims = new Map<string, Set<string>>()
  private readonly missed = new MissedOccurrences(MISSED_CAP)
  private readonly encoded: EncodedTasks
  private readonly announcements: Announcements
  /** Counts adopted reads and writes, so a slow read can tell that a newer one landed while it ran. */
  private adoptions = 0
  private nextReconcile: Promise<void> | undefined
  private fileWatch: FSWatcher | undefined
  private closed = false

  constructor(private readonly options: TasksOptions) {
    const { path, log, clock } = options
    this.store = new TaskStore(path, (error) => log.warn({ err: error }, 'could not compact tasks.journal into tasks.json; it is tried again after the next write'))
    this.ledger = new WatchLedger(join(dirname(path), 'watchers.json'), log)
    this.outcomes = new OutcomeWriter(this.store, (loaded) => this.adopt(loaded), log)
    const taskOf = (id: string) => this.loaded.doc.tasks.find((task) => task.id === id)
    this.runs = new Runs(this.outcomes, taskOf, (taskId) => this.automation.runEnded(taskId), log)
    const runtime = {
      env: () => paneEnvironment(options.env, undefined, options.config.get('session_env_passthrough')),
      ledger: this.ledger,
    }
    this.automation = new Automation(clock, this.runs, this.outcomes, taskOf, runtime, log, () => this.announcements.fired())
    this.encoded = new EncodedTasks(clock, options.config, { of: (id) => this.automation.live(id), version: () => this.automation.liveVersion() }, this.missed)
    const turnMs = turnMsFrom(options.env)
    this.announcements = new Announcements({
      feed: options.feed((task, ordinal, doc) => this.encoded.encoded(task, ordinal, doc), turnMs),
      clock,
      turnMs,
      holdsUntil: () => this.encoded.holdsUntil(),
      current: () => this.loaded.doc,
    })
  }

  /** Connects the sessions that task runs go through; until then runs and target checks are refused. */
  attach(port: SessionPort): void {
    this.runs.attach(port)
  }

  /** Loads tasks.json and starts the automation. A corrupt file is reported, kept, and blocks only tasks. */
  async restore(): Promise<void> {
    await this.compact()
    await this.current().catch((error: Error) => this.options.log.error({ err: error }, 'tasks not restored'))
    this.runs.adopt(this.loaded.doc.runs)
    await this.ledger.reap()
    await this.ops.run(() => this.reconcile())
    // Count missed occurrences now, a few tasks at a time, so the first ListTasks does
    // not block the event loop on a store of tasks long behind schedule.
    const doc = this.loaded.doc
    for (const [ordinal, task] of doc.tasks.entries()) {
      this.encoded.encode(task, ordinal, doc)
      if (ordinal % 20 === 19) await new Promise((resume) => setImmediate(resume))
    }
    try {
      // Another writer (a second daemon, a script) may change the file: pick it up promptly.
      const names = new Set([basename(this.store.path), basename(this.store.journalPath)])
      this.fileWatch = watch(dirname(this.store.path), (_event, name) => {
        if (name !== null && names.has(name)) void this.current().catch((error: Error) => this.reloadFailed(error))
      })
      this.fileWatch.unref()
    } catch (error) {
      this.options.log.warn({ err: error }, 'cannot watch tasks.json; changes by other writers show on the next read')
    }
  }

  /** Stops timers and watchers (each process group gone) and settles pending writes. */
  async close(): Promise<void> {
    this.closed = true
    this.announcements.close()
    this.fileWatch?.close()
    await this.ops.idle()
    await this.automation.close()
    await this.runs.close()
    await this.outcomes.idle()
    await this.store.idle()
    await this.compact()
    await this.ledger.idle()
  }

  /** Folds the journal into tasks.json at start and stop, so that a stopped store is one file. */
  private async compact(): Promise<void> {
    // A corrupt store stays as it is; the error is reported where it is read.
    await this.store.compact().catch((error: Error) => {
      if (!(error instanceof CorruptFile)) this.options.log.warn({ err: error }, 'could not compact tasks.journal into tasks.json')
    })
  }

  enabledTargeting(title: string, repoId: string): string[] {
    const stored = this.loaded.doc.tasks
      .filter((task) => task.enabled && task.target_session === title && task.repo_id === repoId)
      .map((task) => task.id)
    return [...new Set([...stored, ...(this.claims.get(`${repoId}/${title}`) ?? [])])]
  }

  listOnComplete(): Static<typeof ListOnCompleteResponse> {
    return { values: ON_COMPLETE.map((option) => ({ ...option })) }
  }

  /** The ListTasks response as JSON text. */
  async listJson(): Promise<string> {
    return this.encoded.listJson(await this.current())
  }

  /** Rules and the repository (a git call) are checked before joining the write queue, so concurrent adds overlap them. */
  async add({ task: input, actor }: CheckedRequestOf<'AddTask'>) {
    const who = actorOf(actor)
    const now = this.options.clock.now().toISOString()
    const draft = merged(
      {
        ...structuredClone(TASK_DEFAULTS),
        enabled: true,
        id: input.id ?? randomBytes(4).toString('hex'),
        created_at: now,
        audit: [{ at: now, actor: who, op: 'add' }],
      },
      editsOf(input),
    )
    checkTask(draft, input.id !== undefined)
    const task = { ...draft, ...(await resolveProject(draft.project_path)) }
    const after = await this.write((doc) => {
      if (doc.tasks.some((stored) => stored.id === task.id)) throw new Refused(`task ${task.id} already exists`)
      return { tasks: [...doc.tasks, task], changed: task }
    })
    return { ok: true as const, task: this.encodeId(task.id, after) }
  }

  async update({ id: taskId, update, expect, actor }: CheckedRequestOf<'UpdateTask'>) {
    const who = actorOf(actor)
    const edits = editsOf(update)
    const fields = Object.keys(edits)
    if (fields.length === 0) throw new InvalidRequest('update has no fields to change')
    const project = edits.project_path === undefined ? {} : await resolveProject(edits.project_path)
    const after = await this.write((doc) => {
      const current = this.find(doc, taskId, expect)
      const at = this.options.clock.now().toISOString()
      const audit = [...current.audit, { at, actor: who, op: `update ${fields.join(',')}` }].slice(-AUDIT_LENGTH)
      const next = { ...merged(current, edits), ...project, audit }
      checkTask(next)
      return { tasks: doc.tasks.map((task) => (task.id === taskId ? next : task)), changed: next }
    })
    return { ok: true as const, task: this.encodeId(taskId, after) }
  }

  async remove({ id: taskId, expect }: ById) {
    await this.write((doc) => {
      this.find(doc, taskId, expect)
      return { tasks: doc.tasks.filter((task) => task.id !== taskId) }
    })
    return { ok: true as const }
  }

  /** Replaces an enabled watch task's watcher: the old process group and drainer are gone before the new one starts. */
  restart({ id: taskId, expect }: ById) {
    return this.ops.run(async () => {
      const task = await this.inspect(taskId, expect)
      if (kindOf(task) !== 'watch') throw new Refused(`task ${taskId} is not a watch task; RestartTask applies to enabled watch tasks`)
      if (!task.enabled) throw new Refused(`task ${taskId} is disabled`)
      await this.automation.unwatch(taskId)
      await this.reconcile()
      return { ok: true as const }
    })
  }

  /** Fires an enabled cron task now, through the scheduler's path; answers once the run is dispatched. */
  async trigger({ id: taskId, expect }: ById) {
    const task = await this.ops.run(async () => {
      const task = await this.inspect(taskId, expect)
      if (!task.enabled) throw new Refused(`task ${taskId} is disabled`)
      if (kindOf(task) === 'watch') {
        throw new Refused(`task ${taskId} is a watch task; it fires when its watch command emits output, not on manual trigger`)
      }
      if (kindOf(task) !== 'cron') throw new Refused(`task ${taskId} has no cron_expr`)
      return task
    })
    await this.automation.trigger(task)
    return { ok: true as const }
  }

  /**
   * Replaces the task list, after the archived target check of the task it adds or
   * changes: the change joins the store's next batch (writes are not serialized here, or
   * none would ever share a batch), then the automation is brought in line before
   * answering. Resolves with the document right after this change.
   */
  private async write(change: (doc: TaskDocument) => { tasks: TaskRecord[]; changed?: TaskRecord }): Promise<TaskDocument> {
    // The store catches up under its lock anyway; a read first only matters to retry a broken one.
    if (this.broken) await this.current()
    const claimed: Array<[string, string]> = []
    let after: TaskDocument
    try {
      const committed = await this.store.transact((doc) => {
        const { tasks, changed } = change(doc)
        if (changed) {
          claimed.push(...this.claim(changed))
          this.checkTarget(changed)
        }
        return { result: undefined, next: { ...doc, tasks } }
      })
      after = committed.after
      this.adopt(committed)
    } catch (error) {
      if (error instanceof CorruptFile) this.corrupted(error)
      throw error
    } finally {
      for (const [key, id] of claimed) this.claims.get(key)?.delete(id)
    }
    try {
      await this.reconcileSoon()
    } catch (error) {
      throw new MutationCommitted(`the task change was saved, but applying it failed: ${(error as Error).message}`)
    }
    return after
  }

  private claim(task: TaskRecord): Array<[string, string]> {
    if (!task.enabled || task.target_session === '') return []
    const key = `${task.repo_id}/${task.target_session}`
    const ids = this.claims.get(key) ?? new Set()
    ids.add(task.id)
    this.claims.set(key, ids)
    return [[key, task.id]]
  }

  /** An enabled task may not target a session that is archived or being archived. */
  private checkTarget(task: TaskRecord): void {
    if (!task.enabled || task.target_session === '') return
    const state = this.runs.sessions().targetState(task.target_session, task.repo_id)
    if (state === 'archived' || state === 'archiving') {
      throw new Refused(`task ${task.id}: target_session "${task.target_session}" is ${state}; restore it or disable the task`)
    }
  }

  /** A fresh read under the lock, for checks that must see what a write would see. */
  private async inspect(id: string, expect: ExpectT | undefined): Promise<TaskRecord> {
    await this.current()
    const loaded = await this.store.transact((doc) => ({ result: this.find(doc, id, expect) }))
    this.adopt(loaded)
    return loaded.result
  }

  private find(doc: TaskDocument, id: string, expect: ExpectT | undefined): TaskRecord {
    const task = doc.tasks.find((candidate) => candidate.id === id)
    if (!task) throw new NotFound(`task ${excerpt(id)} not found`)
    checkExpect(task, expect)
    return task
  }

  /** The document as on disk now: reloaded when another writer replaced it, refused while corrupt. */
  private async current(): Promise<TaskDocument> {
    const version = this.store.currentVersion()
    if (version !== this.loaded.version || this.broken) {
      const before = this.adoptions
      try {
        const loaded = await this.store.load()
        // A write adopted meanwhile is at least as new as this read: the read must not undo it.
        if (this.adoptions === before) this.adopt(loaded)
      } catch (error) {
        if (error instanceof CorruptFile) this.corrupted(error)
        throw error
      }
    }
    return this.loaded.doc
  }

  /** Takes a newer read or write of the store as current; the automation follows in the queue. */
  private adopt(loaded: Loaded): void {
    this.adoptions++
    const changed = loaded.doc !== this.loaded.doc
    this.loaded = { doc: loaded.doc, version: loaded.version }
    this.broken = undefined
    if (changed) {
      // Announced once the automation follows it, so next_run_at and the like are current.
      void this.reconcileSoon()
        .catch((error: Error) => this.options.log.error({ err: error }, 'could not apply changed tasks to schedules and watchers'))
        .then(() => this.announcements.adopted())
    }
  }

  /**
   * A reconcile that starts after this call, in the queue: callers that ask before it
   * starts share it, so a burst of writes costs one pass over the tasks, not one each.
   */
  private reconcileSoon(): Promise<void> {
    this.nextReconcile ??= this.ops.run(() => {
      this.nextReconcile = undefined
      return this.reconcile()
    })
    return this.nextReconcile
  }

  /** Refuses task operations until the store reads again; logged once per problem. */
  private corrupted(error: CorruptFile): void {
    if (this.broken?.message !== error.message) this.options.log.error({ err: error }, 'the task store is corrupt')
    this.broken = error
  }

  /** current() has logged a corrupt file already; anything else would go unseen until the next read. */
  private reloadFailed(error: Error): void {
    if (!(error instanceof CorruptFile)) this.options.log.warn({ err: error }, 'could not reload tasks.json after it changed on disk')
  }

  private reconcile(): Promise<void> {
    if (this.closed) return Promise.resolve()
    const ids = new Set(this.loaded.doc.tasks.map((task) => task.id))
    this.missed.retain(ids)
    this.encoded.retain(ids)
    return this.automation.reconcile(this.loaded.doc.tasks)
  }

  private encodeId(id: string, doc: TaskDocument): TaskWire {
    const ordinal = doc.tasks.findIndex((task) => task.id === id)
    return this.encoded.encode(doc.tasks[ordinal] as TaskRecord, ordinal, doc)
  }
}
