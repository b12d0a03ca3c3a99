import type { Clock } from '../infra/clock.js'

/**
 * setTimeout cannot wait longer than about 24.8 days, and the wall clock may jump; waking
 * at least this often re-reads the clock and re-arms.
 */
const MAX_SLEEP_MS = 60 * 60 * 1000

/**
 * Cron arming: the next due instant per task and one timer, set for the earliest of them.
 * When it fires, every task that is due fires once (however many occurrences passed)
 * and is re-armed for its next occurrence after now.
 */
export class CronScheduler {
  private readonly due = new Map<string, Date>()
  private timer: NodeJS.Timeout | undefined
  private timerAt = Number.POSITIVE_INFINITY
  /** Counts changes of the due instants (each is followed by rearm), for readers that cache what they derived from them. */
  private dueChanges = 0

  constructor(
    private readonly clock: Clock,
    /** The next occurrence of the task strictly after `after`; undefined stops arming it. */
    private readonly nextAfter: (id: string, after: Date) => Date | undefined,
    private readonly fire: (id: string, due: Date) => void,
  ) {}

  /** Arms the task for its next occurrence from now, or disarms it. */
  arm(id: string, armed: boolean): void {
    const next = armed ? this.nextAfter(id, this.clock.now()) : undefined
    if (next) this.due.set(id, next)
    else this.due.delete(id)
    this.rearm()
  }

  /** Changes whenever some task's next run does. */
  get changes(): number {
    return this.dueChanges
  }

  /** When the task fires next, while it is armed. */
  nextRun(id: string): Date | undefined {
    return this.due.get(id)
  }

  stop(): void {
    this.due.clear()
    this.rearm()
  }

  private rearm(): void {
    this.dueChanges++
    let earliest = Number.POSITIVE_INFINITY
    for (const at of this.due.values()) earliest = Math.min(earliest, at.getTime())
    if (earliest === this.timerAt) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.timerAt = earliest
    if (earliest === Number.POSITIVE_INFINITY) return
    const wait = Math.min(Math.max(0, earliest - this.clock.now().getTime()), MAX_SLEEP_MS)
    this.timer = setTimeout(() => this.wake(), wait)
    this.timer.unref()
  }

  private wake(): void {
    this.timer = undefined
    this.timerAt = Number.POSITIVE_INFINITY
    const now = this.clock.now()
    const fired = [...this.due].filter(([, at]) => at.getTime() <= now.getTime())
    // Fire first: finding each next occurrence takes cron-parser a while, and 200 tasks
    // due together must not wait for it.
    for (const [id, at] of fired) this.fire(id, at)
    for (const [id] of fired) {
      const next = this.nextAfter(id, now)
      if (next) this.due.set(id, next)
      else this.due.delete(id)
    }
    this.rearm()
  }
}
