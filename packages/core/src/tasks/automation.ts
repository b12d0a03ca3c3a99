import type { Logger } from 'pino'
import type { Clock } from '../infra/clock.js'
import { checkCron, nextOccurrence } from './cron.js'
import type { LiveState } from './health.js'
import type { OutcomeWriter } from './outcomes.js'
import { kindOf, type TaskRecord } from './record.js'
import { renderPrompt, type Runs } from './runs.js'
import { CronScheduler } from './scheduler.js'
import { WatchQueue } from './watch-queue.js'
import { Watcher, type WatchRuntime } from './watcher.js'

interface Watch {
  watcher: Watcher
  queue: WatchQueue
  /** Why the command no longer runs, once it exited or gave up. */
  ended?: string
}

function armable(task: TaskRecord): boolean {
  return task.enabled && kindOf(task) === 'cron' && checkCron(task.cron_expr, task.id).kind === 'ok'
}

function watched(task: TaskRecord): boolean {
  return task.enabled && kindOf(task) === 'watch'
}

/**
 * The live side of tasks: cron tasks armed on one scheduler, a watcher and event queue
 * per enabled watch task, both kept in line with the store by `reconcile`.
 */
export class Automation {
  private readonly scheduler: CronScheduler
  /** The cron_expr each armed task was armed with, to re-arm only on a change. */
  private readonly armedWith = new Map<string, string>()
  private readonly watches = new Map<string, Watch>()
  private readonly firedAt = new Map<string, Date>()
  /** Counts changes of the watches and fire times `live` reads. */
  private liveChanges = 0

  constructor(
    private readonly clock: Clock,
    private readonly runs: Runs,
    private readonly outcomes: OutcomeWriter,
    private readonly taskOf: (id: string) => TaskRecord | undefined,
    private readonly watchRuntime: WatchRuntime,
    private readonly log: Logger,
    /** The scheduler fired a task: its next_run_at moved. */
    private readonly fired: () => void,
  ) {
    this.scheduler = new CronScheduler(
      clock,
      (id, after) => {
        const task = taskOf(id)
        const cron = task && checkCron(task.cron_expr, task.id)
        return cron?.kind === 'ok' ? nextOccurrence(cron.expression, after) : undefined
      },
      (id, due) => this.fire(id, due),
    )
  }

  /** Changes whenever some task's live state does. */
  liveVersion(): number {
    return this.scheduler.changes + this.liveChanges
  }

  live(id: string): LiveState {
    const ended = this.watches.get(id)?.ended
    const next = this.scheduler.nextRun(id)
    const firedAt = this.firedAt.get(id)
    return { ...(next ? { next } : {}), ...(firedAt ? { firedAt } : {}), ...(ended ? { watchEnded: ended } : {}) }
  }

  /** Brings timers and watchers in line with `tasks`; returns once every watcher to stop is gone. */
  async reconcile(tasks: TaskRecord[]): Promise<void> {
    const byId = new Map(tasks.map((task) => [task.id, task]))
    for (const [id, expr] of this.armedWith) {
      const task = byId.get(id)
      if (!task || !armable(task) || task.cron_expr !== expr) this.disarm(id)
    }
    for (const task of tasks) {
      if (armable(task) && !this.armedWith.has(task.id)) {
        this.armedWith.set(task.id, task.cron_expr)
        this.scheduler.arm(task.id, true)
      }
    }
    const stale = [...this.watches].filter(([id, watch]) => {
      const task = byId.get(id)
      return !task || !watched(task) || task.watch_cmd !== watch.watcher.command || task.project_path !== watch.watcher.cwd
    })
    await Promise.all(stale.map(([id]) => this.unwatch(id)))
    for (const task of tasks) if (watched(task) && !this.watches.has(task.id)) this.watch(task)
  }

  /** Stops the task's watcher and its queue drainer and waits for both; reconcile then starts one replacement. */
  async unwatch(id: string): Promise<void> {
    const watch = this.watches.get(id)
    if (!watch) return
    this.watches.delete(id)
    this.liveChanges++
    await Promise.all([watch.watcher.stop(), watch.queue.stop()])
  }

  /** A spawned run of the task ended: its watch queue may have a free slot. */
  runEnded(taskId: string): void {
    this.watches.get(taskId)?.queue.poke()
  }

  /** Fires a task now (TriggerTask), through the scheduler's path. */
  trigger(task: TaskRecord): Promise<void> {
    return this.runs.fire(task, this.stamp(task.id))
  }

  async close(): Promise<void> {
    this.scheduler.stop()
    this.armedWith.clear()
    await Promise.all([...this.watches.keys()].map((id) => this.unwatch(id)))
  }

  private disarm(id: string): void {
    this.armedWith.delete(id)
    this.scheduler.arm(id, false)
  }

  private stamp(id: string): Date {
    const at = this.clock.now()
    this.firedAt.set(id, at)
    this.liveChanges++
    return at
  }

  private fire(id: string, due: Date): void {
    const task = this.taskOf(id)
    if (!task || !armable(task)) return
    const at = this.stamp(id)
    this.log.info({ task: id, due: due.toISOString(), lateness_ms: at.getTime() - due.getTime() }, 'cron task fired')
    // A failed run is logged and recorded by the dispatch itself.
    this.runs.fire(task, at).catch(() => {})
    this.fired()
  }

  private watch(task: TaskRecord): void {
    const id = task.id
    const queue = new WatchQueue(
      () => {
        const current = this.taskOf(id)
        return !current || current.target_session !== '' || this.runs.inFlight(id) < Math.max(1, current.max_concurrent_runs)
      },
      async (line) => {
        const current = this.taskOf(id)
        if (current) await this.runs.dispatch(current, renderPrompt(current.prompt, line), this.clock.now())
      },
      // Nobody waits on these outcomes: recordOrLog logs a failed write.
      (count) => void this.outcomes.recordOrLog({ task_id: id, dropped: count }),
    )
    const watch: Watch = {
      queue,
      watcher: new Watcher(
        task.watch_cmd,
        task.project_path,
        (line) => queue.push(line),
        (reason) => {
          watch.ended = reason
          this.liveChanges++
          this.log.warn({ task: id, reason }, 'watch command stopped')
          void this.outcomes.recordOrLog({ task_id: id, last_run_status: reason })
        },
        this.watchRuntime,
        this.log,
      ),
    }
    this.watches.set(id, watch)
    this.liveChanges++
  }
}
