import type { Clock } from '../infra/clock.js'
import type { TaskDocument, TaskRecord, TaskWire } from './record.js'

/** Turns of health are looked at no more often than this, and at least this often (the wall clock may jump). */
const HEALTH_TURN_MIN_MS = 100
const HEALTH_TURN_MAX_MS = 60 * 60 * 1000
/** A task's change by time alone is announced at most once per this long. */
const TASK_TURN_MS = 60_000

/** Test hook: SVC_TASK_TURN_MS shortens TASK_TURN_MS, so a test sees the limit in seconds. */
export function turnMsFrom(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.SVC_TASK_TURN_MS)
  return Number.isInteger(ms) && ms > 0 ? ms : TASK_TURN_MS
}

/**
 * A task as ListTasks encodes it, that encoding as text, and the text but for its
 * placement (ordinal and store_generation, which a write moves in tasks it did not touch).
 */
export type TaskEncoder = (task: TaskRecord, ordinal: number, doc: TaskDocument) => { wire: TaskWire; json: string; content: string }

/**
 * What hears of the task list's changes: the task feed (events/task-feed.ts), which sits
 * above the domain and turns them into events.
 */
export interface TaskChanges {
  /** A newer document was adopted, and the automation follows it. */
  adopted(doc: TaskDocument): void
  /** Time alone may have changed encodings of `doc`; answers when the earliest change held back may go. */
  turned(doc: TaskDocument, now: number): number
}

/** Makes the feed that hears of task changes, given how tasks encode and how often time alone may announce one. */
export type TaskFeedFactory = (encode: TaskEncoder, turnMs: number) => TaskChanges

export interface AnnouncementsOptions {
  feed: TaskChanges
  clock: Clock
  turnMs: number
  /** The earliest instant some task's encoding may read differently with time alone. */
  holdsUntil(): number
  /** The document adopted last. */
  current(): TaskDocument
}

/**
 * When the task list's changes go to the feed: each adopted document at once, and
 * between documents, whenever time alone may have changed a task (an occurrence missed,
 * a missed one turned overdue, a fired task's next run).
 */
export class Announcements {
  /** Wakes when some task's health moves with the clock alone, to announce it. */
  private healthTurn: NodeJS.Timeout | undefined
  /** When the earliest change by time alone that the feed held back may go. */
  private heldUntil = Number.POSITIVE_INFINITY
  /** A look the scheduler asked for by firing, once the fire's own write has had time to land. */
  private checkAt = Number.POSITIVE_INFINITY
  /** When the scheduler last fired a task. */
  private firedAt = Number.NEGATIVE_INFINITY
  private closed = false

  constructor(private readonly options: AnnouncementsOptions) {}

  /** Sends what changed in ListTasks, then waits for time alone to change it. */
  adopted(): void {
    this.options.feed.adopted(this.options.current())
    this.arm()
  }

  /**
   * A fired task's next_run_at moved: the run's recorded result announces that, but a
   * fire joined to one still starting records nothing, so look again once the result
   * would have landed.
   */
  fired(): void {
    this.firedAt = this.options.clock.now().getTime()
    // Tasks firing together share one look.
    if (this.checkAt !== Number.POSITIVE_INFINITY) return
    this.checkAt = this.firedAt + this.options.turnMs
    this.arm()
  }

  close(): void {
    this.closed = true
    clearTimeout(this.healthTurn)
  }

  /** Sends what time alone changed, each task at most once per turnMs, then waits for the next change. */
  private turn(): void {
    const { clock, turnMs, feed } = this.options
    const now = clock.now().getTime()
    // A fire since the look was asked for gets its own.
    if (now >= this.checkAt) this.checkAt = this.firedAt + turnMs > now ? this.firedAt + turnMs : Number.POSITIVE_INFINITY
    this.heldUntil = feed.turned(this.options.current(), now)
    this.arm()
  }

  /**
   * Waits for the earliest instant a task's encoding may change with no write (an
   * occurrence missed, a missed one turned overdue), a held-back change may go, or a
   * look after a fire is due.
   */
  private arm(): void {
    clearTimeout(this.healthTurn)
    const until = Math.min(this.options.holdsUntil(), this.heldUntil, this.checkAt)
    if (this.closed || until === Number.POSITIVE_INFINITY) return
    const wait = Math.min(Math.max(HEALTH_TURN_MIN_MS, until - this.options.clock.now().getTime()), HEALTH_TURN_MAX_MS)
    this.healthTurn = setTimeout(() => this.turn(), wait)
    this.healthTurn.unref()
  }
}
