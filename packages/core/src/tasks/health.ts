import type { TaskArming } from '@svc/protocol'
import { checkCron } from './cron.js'
import type { MissedOccurrences } from './missed.js'
import { kindOf, type TaskRecord, type TaskWire } from './record.js'

/** Missed occurrences are counted up to this many; beyond it `missed_occurrences_capped` is set. */
export const MISSED_CAP = 100

export type Health = Pick<
  TaskWire,
  | 'arming'
  | 'next_run_at'
  | 'overdue'
  | 'missed_occurrences'
  | 'missed_occurrences_capped'
  | 'unschedulable'
  | 'unschedulable_reason'
  | 'unassessable'
>

/** What the live scheduler and watchers know about one task. */
export interface LiveState {
  /** The armed cron timer's instant for the task. */
  next?: Date
  /** When the scheduler last fired it in this process, before the run's result is stored. */
  firedAt?: Date
  /** Why a watch task's command no longer runs (it exited or gave up). */
  watchEnded?: string
}

function arming(arming: TaskArming, reason?: string): Health {
  return {
    arming,
    overdue: false,
    missed_occurrences: 0,
    missed_occurrences_capped: false,
    unschedulable: arming === 'unschedulable',
    ...(reason ? { unschedulable_reason: reason } : {}),
    unassessable: false,
  }
}

function latest(times: Array<string | Date | undefined>): Date | undefined {
  const valid = times
    .map((time) => (time === undefined ? Number.NaN : new Date(time).getTime()))
    .filter((ms) => Number.isFinite(ms))
  return valid.length > 0 ? new Date(Math.max(...valid)) : undefined
}

/**
 * Schedule health, derived on every read and never stored. Missed occurrences count from
 * the later of created_at and last_run_at; overdue means one of them passed more than
 * one poll interval ago.
 */
export function healthOf(task: TaskRecord, live: LiveState, now: Date, pollMs: number, missed: MissedOccurrences): Health {
  if (!task.enabled) return arming('disabled')
  const kind = kindOf(task)
  if (kind === 'watch') return live.watchEnded ? arming('unschedulable', live.watchEnded) : arming('watching')
  if (kind === 'none') return arming('unschedulable', 'no cron_expr or watch_cmd')
  const cron = checkCron(task.cron_expr, task.id)
  if (cron.kind === 'invalid') return arming('unschedulable', cron.message)
  if (cron.kind === 'never') return arming('unschedulable', `cron_expr "${task.cron_expr}" never fires: ${cron.reason}`)
  const health: Health = { ...arming('armed'), ...(live.next ? { next_run_at: live.next.toISOString() } : {}) }
  const since = latest([task.created_at, task.last_run_at, live.firedAt])
  if (!since) return { ...health, unassessable: true }
  const { count, first } = missed.count(task.id, task.cron_expr, cron.expression, since, now)
  return {
    ...health,
    missed_occurrences: Math.min(count, MISSED_CAP),
    missed_occurrences_capped: count > MISSED_CAP,
    overdue: first !== undefined && first.getTime() <= now.getTime() - pollMs,
  }
}

/**
 * The instant a `health` derived now may next read differently with the same task and
 * live state: when another occurrence is missed, or when the first missed one turns
 * overdue. Health that does not move with time holds forever. The occurrence the
 * scheduler is armed for is not missed when it comes but fired, which changes the live
 * state (and the fire's recorded run announces it): health holds through it.
 */
export function healthHoldsUntil(task: TaskRecord, health: Health, pollMs: number, missed: MissedOccurrences): number {
  if (health.arming !== 'armed' || health.unassessable) return Number.POSITIVE_INFINITY
  const armed = health.next_run_at === undefined ? Number.POSITIVE_INFINITY : Date.parse(health.next_run_at)
  const counted = missed.countHoldsUntil(task.id)
  const nextMissed = counted < armed ? counted : Number.POSITIVE_INFINITY
  const first = health.missed_occurrences > 0 && !health.overdue ? missed.firstOf(task.id) : undefined
  return first === undefined ? nextMissed : Math.min(nextMissed, first + pollMs)
}
