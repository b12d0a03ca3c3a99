import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { systemClock } from '../infra/clock.js'
import { CronScheduler } from './scheduler.js'

const MINUTE = 60_000

beforeEach(() => {
  vi.useFakeTimers()
  vi.setSystemTime(new Date('2026-03-01T10:00:30Z'))
})
afterEach(() => vi.useRealTimers())

/** Every task fires each `period` minutes, on the minute. */
function scheduler(periods: Record<string, number>, fired: Array<[string, string, string]>) {
  return new CronScheduler(
    systemClock,
    (id, after) => {
      const step = (periods[id] as number) * MINUTE
      return new Date(Math.floor(after.getTime() / step) * step + step)
    },
    (id, due) => fired.push([id, due.toISOString(), new Date().toISOString()]),
  )
}

it('keeps one timer for the earliest task, however many are armed', () => {
  const fired: Array<[string, string, string]> = []
  const periods = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`t${i}`, (i % 5) + 1]))
  const cron = scheduler(periods, fired)
  for (const id of Object.keys(periods)) cron.arm(id, true)
  expect(vi.getTimerCount()).toBe(1)
  expect(cron.nextRun('t0')?.toISOString()).toBe('2026-03-01T10:01:00.000Z')

  vi.advanceTimersByTime(30_000)
  // every task with a one-minute period fired at the boundary, exactly on time
  expect(fired.map(([id]) => id).sort()).toEqual(Object.keys(periods).filter((id) => periods[id] === 1).sort())
  expect(fired.every(([, due, at]) => due === '2026-03-01T10:01:00.000Z' && at === due)).toBe(true)
  expect(vi.getTimerCount()).toBe(1)
  expect(cron.nextRun('t0')?.toISOString()).toBe('2026-03-01T10:02:00.000Z')

  for (const id of Object.keys(periods)) cron.arm(id, false)
  expect(vi.getTimerCount()).toBe(0)
})

it('fires a task once when several of its occurrences passed (a stalled process), then re-arms after now', () => {
  const fired: Array<[string, string, string]> = []
  const cron = scheduler({ every: 1 }, fired)
  cron.arm('every', true)
  // the event loop stalls for three minutes: the timer runs late, once
  vi.setSystemTime(new Date('2026-03-01T10:03:10Z'))
  vi.advanceTimersToNextTimer()
  expect(fired).toEqual([['every', '2026-03-01T10:01:00.000Z', expect.any(String)]])
  expect(cron.nextRun('every')?.toISOString()).toBe('2026-03-01T10:04:00.000Z')
})

it('re-arms after a timer that woke early, and caps long sleeps so a clock jump is noticed', () => {
  const fired: Array<[string, string, string]> = []
  const cron = scheduler({ daily: 24 * 60 }, fired)
  cron.arm('daily', true)
  vi.advanceTimersByTime(60 * MINUTE)
  // woke after an hour with nothing due: nothing fired, still one timer
  expect(fired).toEqual([])
  expect(vi.getTimerCount()).toBe(1)
  cron.stop()
  expect(vi.getTimerCount()).toBe(0)
})
