import { expect, it } from 'vitest'
import { healthHoldsUntil, healthOf as derive, MISSED_CAP, type LiveState } from './health.js'
import { MissedOccurrences } from './missed.js'
import { hourlyTask } from './task.fixture.js'
import type { TaskRecord } from './record.js'

// Cron runs in the local time zone; hourly boundaries below assume a whole-hour offset.
process.env.TZ = 'UTC'

const task = (fields: Partial<TaskRecord>): TaskRecord => hourlyTask({ id: 'health', ...fields })
const at = (time: string) => new Date(`2026-01-01T${time}Z`)
const POLL = 1000
const healthOf = (task: TaskRecord, live: LiveState, now: Date, poll: number) => derive(task, live, now, poll, new MissedOccurrences(MISSED_CAP))

it('counts hourly occurrences since creation that did not run, and calls the task overdue', () => {
  expect(healthOf(task({}), {}, at('03:10:00'), POLL)).toMatchObject({
    arming: 'armed',
    missed_occurrences: 3,
    missed_occurrences_capped: false,
    overdue: true,
    unassessable: false,
  })
})

it('counts from the last run, or from a fire still in progress', () => {
  const ran = task({ last_run_at: '2026-01-01T03:00:00.020Z' })
  expect(healthOf(ran, {}, at('03:10:00'), POLL)).toMatchObject({ missed_occurrences: 0, overdue: false })
  expect(healthOf(task({}), { firedAt: at('03:00:00.005') }, at('03:00:00.100'), POLL)).toMatchObject({
    missed_occurrences: 0,
    overdue: false,
  })
})

it('is not overdue within one poll interval of the occurrence', () => {
  expect(healthOf(task({}), {}, at('01:00:00.500'), POLL)).toMatchObject({ missed_occurrences: 1, overdue: false })
  expect(healthOf(task({}), {}, at('01:00:01'), POLL)).toMatchObject({ missed_occurrences: 1, overdue: true })
})

it('caps the count', () => {
  const health = healthOf(task({ cron_expr: '* * * * *' }), {}, at('05:00:00'), POLL)
  expect(health).toMatchObject({ missed_occurrences: 100, missed_occurrences_capped: true, overdue: true })
})

it('is unassessable without a reference time', () => {
  const { created_at: _, ...bare } = task({})
  expect(healthOf(bare, {}, at('05:00:00'), POLL)).toMatchObject({ unassessable: true, missed_occurrences: 0, overdue: false })
})

it('reports the live timer, and unschedulable, disabled and watching tasks', () => {
  expect(healthOf(task({}), { next: at('04:00:00') }, at('03:00:00'), POLL).next_run_at).toBe('2026-01-01T04:00:00.000Z')
  expect(healthOf(task({ cron_expr: '0 0 30 2 *' }), {}, at('03:00:00'), POLL)).toEqual({
    arming: 'unschedulable',
    unschedulable: true,
    unschedulable_reason: 'cron_expr "0 0 30 2 *" never fires: day of month 30 never occurs in month 2',
    overdue: false,
    missed_occurrences: 0,
    missed_occurrences_capped: false,
    unassessable: false,
  })
  expect(healthOf(task({ enabled: false }), {}, at('03:00:00'), POLL)).toMatchObject({ arming: 'disabled', missed_occurrences: 0 })
  const watch = task({ cron_expr: '', watch_cmd: 'tail -f log' })
  expect(healthOf(watch, {}, at('03:00:00'), POLL)).toMatchObject({ arming: 'watching', unschedulable: false })
  expect(healthOf(watch, { watchEnded: 'gave up' }, at('03:00:00'), POLL)).toMatchObject({
    arming: 'unschedulable',
    unschedulable_reason: 'gave up',
  })
})

it('carries the count forward between reads, and starts over when the reference moves', () => {
  const missed = new MissedOccurrences(MISSED_CAP)
  const minutely = task({ cron_expr: '* * * * *' })
  const read = (time: string, record = minutely) => derive(record, {}, at(time), POLL, missed).missed_occurrences
  expect(read('00:40:00')).toBe(10)
  expect(read('00:45:30')).toBe(15)
  expect(read('00:45:30')).toBe(15)
  expect(read('00:45:40', { ...minutely, last_run_at: '2026-01-01T00:45:00.000Z' })).toBe(0)
  expect(read('00:50:00', { ...minutely, last_run_at: '2026-01-01T00:45:00.000Z' })).toBe(5)
  // a clock that went back is counted afresh
  expect(read('00:35:00')).toBe(5)
})

it('holds until a missed one turns overdue or another is missed, but through the occurrence the scheduler is armed for', () => {
  const missed = new MissedOccurrences(MISSED_CAP)
  const holds = (live: LiveState, now: Date) => {
    const health = derive(task({}), live, now, POLL, missed)
    return healthHoldsUntil(task({}), health, POLL, missed)
  }
  // Restarted at 01:00:00.500: the 01:00 run was missed; it turns overdue at 01:00:01.
  expect(holds({ next: at('02:00:00') }, at('01:00:00.500'))).toBe(at('01:00:01').getTime())
  // Overdue now: the 02:00 occurrence is the scheduler's to fire, not a turn of health.
  expect(holds({ next: at('02:00:00') }, at('01:00:02'))).toBe(Number.POSITIVE_INFINITY)
  // Not armed for it (the schedule was not loaded yet): 02:00 would be missed.
  expect(holds({}, at('01:00:03'))).toBe(at('02:00:00').getTime())
})
