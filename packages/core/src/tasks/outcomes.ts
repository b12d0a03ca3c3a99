import type { Logger } from 'pino'
import type { Loaded, TaskStore } from './store.js'
import type { RunRecord, TaskDocument, TaskRecord } from './record.js'

/** A change to scheduler-owned state: run results, dropped events, the spawned sessions in flight. */
export interface Outcome {
  task_id: string
  last_run_at?: string
  last_run_status?: string
  dropped?: number
  started?: RunRecord
  /** Session id of a spawned run that ended. */
  ended?: string
}

/** `doc` with the outcomes applied; a task they do not touch stays the same object, so it is not written again. */
function apply(doc: TaskDocument, outcomes: Outcome[]): TaskDocument {
  const stored = new Map(doc.tasks.map((task) => [task.id, task]))
  const touched = new Map<string, TaskRecord>()
  let runs = doc.runs
  for (const outcome of outcomes) {
    if (outcome.ended !== undefined) runs = runs.filter((run) => run.session_id !== outcome.ended)
    const before = stored.get(outcome.task_id)
    // A task removed meanwhile keeps nothing, not even its run.
    if (!before) continue
    const task = touched.get(before.id) ?? { ...before }
    touched.set(task.id, task)
    if (outcome.last_run_at !== undefined) task.last_run_at = outcome.last_run_at
    if (outcome.last_run_status !== undefined) task.last_run_status = outcome.last_run_status
    task.dropped_events += outcome.dropped ?? 0
    if (outcome.started) runs = [...runs, outcome.started]
  }
  return { ...doc, tasks: doc.tasks.map((task) => touched.get(task.id) ?? task), runs }
}

/**
 * Writes what the scheduler and watchers observe. Outcomes that arrive while a write is
 * under way are merged into the next one, so 200 runs firing together cost a few
 * writes, not 200. Each write applies to the store as it is under its lock, like any
 * other, and touches only scheduler-owned fields, so client edits are never overwritten.
 */
export class OutcomeWriter {
  private pending: Array<{ outcome: Outcome; done: () => void; failed: (error: Error) => void }> = []
  private flushing: Promise<void> | undefined

  constructor(
    private readonly store: TaskStore,
    private readonly written: (loaded: Loaded) => void,
    private readonly log: Logger,
  ) {}

  record(outcome: Outcome): Promise<void> {
    return new Promise((done, failed) => {
      this.pending.push({ outcome, done, failed })
      this.flushing ??= this.flush()
    })
  }

  /**
   * For callers with nobody to tell: never rejects; a failed write is logged with the
   * outcome it lost, which the task's status then lacks.
   */
  recordOrLog(outcome: Outcome): Promise<void> {
    return this.record(outcome).catch((error: Error) => this.log.error({ err: error, task: outcome.task_id, outcome }, 'could not record a task outcome'))
  }

  /** Resolves once everything recorded so far is on disk. */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0)
      try {
        const loaded = await this.store.transact((doc) => ({
          result: undefined,
          next: apply(doc, batch.map((entry) => entry.outcome)),
        }))
        this.written(loaded)
        for (const entry of batch) entry.done()
      } catch (error) {
        for (const entry of batch) entry.failed(error as Error)
      }
    }
    this.flushing = undefined
  }
}
