import type { CronExpression } from 'cron-parser'
import { nextOccurrence } from './cron.js'

interface Tally {
  /** The schedule and reference time the count belongs to. */
  key: string
  /** When the count was brought up to date: a clock seen going back starts it over. */
  at: number
  count: number
  first: number | undefined
  /** The first occurrence not counted yet. */
  next: number | undefined
}

/**
 * Occurrences of a task's schedule since its reference time (up to `cap` + 1), carried
 * forward between reads: a read steps the schedule only past occurrences that arrived
 * since the one before. cron-parser takes tens to hundreds of microseconds per step,
 * which 1,000 tasks must not pay on every ListTasks.
 */
export class MissedOccurrences {
  private readonly tallies = new Map<string, Tally>()

  constructor(private readonly cap: number) {}

  /** Occurrences in (since, now], counted up to cap + 1, and the first of them. */
  count(id: string, expr: string, expression: CronExpression, since: Date, now: Date): { count: number; first?: Date } {
    const key = `${expr}\u0000${since.getTime()}`
    let tally = this.tallies.get(id)
    if (!tally || tally.key !== key || tally.at > now.getTime()) {
      const first = nextOccurrence(expression, since)?.getTime()
      tally = { key, at: now.getTime(), count: 0, first, next: first }
      this.tallies.set(id, tally)
    }
    tally.at = now.getTime()
    while (tally.next !== undefined && tally.next <= tally.at && tally.count <= this.cap) {
      tally.count++
      tally.next = nextOccurrence(expression, new Date(tally.next))?.getTime()
    }
    return { count: tally.count, ...(tally.count > 0 && tally.first !== undefined ? { first: new Date(tally.first) } : {}) }
  }

  /**
   * When the last count for `id` stops holding: its next uncounted occurrence, or never
   * once the count is capped or the schedule has no more occurrences.
   */
  countHoldsUntil(id: string): number {
    const tally = this.tallies.get(id)
    return tally?.next !== undefined && tally.count <= this.cap ? tally.next : Number.POSITIVE_INFINITY
  }

  /** The first counted occurrence of `id`, if any. */
  firstOf(id: string): number | undefined {
    const tally = this.tallies.get(id)
    return tally && tally.count > 0 ? tally.first : undefined
  }

  /** Forgets tasks that are no longer stored. */
  retain(ids: Set<string>): void {
    for (const id of this.tallies.keys()) if (!ids.has(id)) this.tallies.delete(id)
  }
}
