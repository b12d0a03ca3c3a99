import type { Logger } from 'pino'
import { MutationCommitted, Refused } from '../errors.js'
import type { SessionPort } from '../tasks-port.js'
import type { OutcomeWriter } from './outcomes.js'
import type { RunRecord, TaskRecord } from './record.js'

export const NO_SESSIONS =
  'sessions are not attached to the task engine in this daemon, so task runs and target_session checks are unavailable'

/** The prompt a watch event turns into: `{{line}}` replaced by the line; an empty prompt is the line itself. */
export function renderPrompt(prompt: string, line: string): string {
  return prompt === '' ? line : prompt.replaceAll('{{line}}', line)
}

/**
 * Task runs through the session port: a task without target_session spawns a session,
 * one with a target delivers into it. Spawned sessions are tracked until they settle,
 * for on_complete and max_concurrent_runs; the result of every run is recorded.
 */
export class Runs {
  private port: SessionPort | undefined
  /** Cron fires still dispatching, per task: a fire meanwhile joins the one in progress. */
  private readonly firing = new Map<string, Promise<void>>()
  /** Spawned sessions not settled yet, by session id. */
  private readonly spawned = new Map<string, RunRecord>()
  /** Completions being applied, by session id: a kill reports the removal back, which must not finish it twice. */
  private readonly finishing = new Map<string, Promise<void>>()
  private closed = false

  constructor(
    private readonly outcomes: OutcomeWriter,
    private readonly taskOf: (id: string) => TaskRecord | undefined,
    /** A spawned run of the task ended: a watch task may start another. */
    private readonly ended: (taskId: string) => void,
    private readonly log: Logger,
  ) {}

  attach(port: SessionPort): void {
    this.port = port
    port.onSettled((id, how) => this.settled(id, how))
  }

  /** The port, or the loud refusal that stands in for it until sessions are attached. */
  sessions(): SessionPort {
    if (!this.port) throw new Refused(NO_SESSIONS)
    return this.port
  }

  /**
   * Takes over the spawned runs stored by an earlier daemon. A run whose session is gone
   * or archived ends now; one whose session is ready settled before its completion could
   * be applied (the daemon stopped first), so its on_complete applies now.
   */
  adopt(runs: RunRecord[]): void {
    for (const run of runs) this.spawned.set(run.session_id, run)
    if (!this.port) return
    for (const run of runs) {
      if (this.port.targetState(run.title, run.repo_id) !== 'live') this.complete(run, '')
      else if (this.port.settled(run.session_id)) this.complete(run, this.policyOf(run))
    }
  }

  /** Lets completions under way finish; sessions that settle from now on complete at the next start. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all(this.finishing.values())
  }

  /** Spawned sessions of the task still running. */
  inFlight(taskId: string): number {
    let count = 0
    for (const run of this.spawned.values()) if (run.task_id === taskId) count++
    return count
  }

  /** A cron or manual fire: while the task's previous fire is still dispatching, this one joins it. */
  fire(task: TaskRecord, at: Date): Promise<void> {
    const current = this.firing.get(task.id)
    if (current) {
      this.log.info({ task: task.id }, 'task fire coalesced with the run in progress')
      return current
    }
    const run = this.dispatch(task, task.prompt, at).finally(() => this.firing.delete(task.id))
    this.firing.set(task.id, run)
    return run
  }

  /** One run of `task` with `prompt`, fired at `at`; its result is recorded, and a failure also thrown. */
  async dispatch(task: TaskRecord, prompt: string, at: Date): Promise<void> {
    const last_run_at = at.toISOString()
    let status: string
    let started: RunRecord | undefined
    try {
      const sessions = this.sessions()
      const program = task.program || undefined
      if (task.target_session !== '') {
        const how = await sessions.deliver({ title: task.target_session, repo_path: task.project_path, program, prompt })
        status = `${how} ${task.target_session}`
      } else {
        const session = await sessions.spawn({ title_base: task.name || task.id, repo_path: task.project_path, program, prompt })
        started = { session_id: session.id, title: session.title, repo_id: task.repo_id, task_id: task.id, started_at: last_run_at }
        this.spawned.set(session.id, started)
        status = `spawned ${session.title}`
      }
    } catch (error) {
      const message = (error as Error).message
      this.log.warn({ task: task.id, err: error }, 'task run failed')
      await this.outcomes.recordOrLog({ task_id: task.id, last_run_at, last_run_status: `failed: ${message}` })
      throw error
    }
    await this.outcomes.record({ task_id: task.id, last_run_at, last_run_status: status, ...(started ? { started } : {}) }).catch((error: Error) => {
      this.log.error({ task: task.id, err: error, status }, 'task ran, but recording the run failed')
      // The run happened: a caller must not take this for a run that did not, nor retry it.
      throw new MutationCommitted(`task ${task.id} ran (${status}), but recording the run failed: ${error.message}`)
    })
  }

  private settled(sessionId: string, how: 'settled' | 'removed'): void {
    const run = this.spawned.get(sessionId)
    if (!run || this.closed || this.finishing.has(sessionId)) return
    this.complete(run, how === 'settled' ? this.policyOf(run) : '')
  }

  private policyOf(run: RunRecord): string {
    return this.taskOf(run.task_id)?.on_complete ?? ''
  }

  private complete(run: RunRecord, policy: string): void {
    const done = this.finish(run, policy).finally(() => this.finishing.delete(run.session_id))
    this.finishing.set(run.session_id, done)
  }

  /** Applies the completion policy, then frees the run's slot. */
  private async finish(run: RunRecord, policy: string): Promise<void> {
    try {
      if (policy === 'archive') await this.sessions().archive(run.session_id)
      if (policy === 'kill') await this.sessions().kill(run.session_id)
    } catch (error) {
      const message = `on_complete ${policy} of session ${run.title} failed: ${(error as Error).message}`
      this.log.warn({ task: run.task_id, err: error }, message)
      await this.outcomes.recordOrLog({ task_id: run.task_id, last_run_status: message })
    }
    this.spawned.delete(run.session_id)
    await this.outcomes.recordOrLog({ task_id: run.task_id, ended: run.session_id })
    this.ended(run.task_id)
  }
}
