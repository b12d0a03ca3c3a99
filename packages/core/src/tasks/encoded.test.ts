import { expect, it, vi } from 'vitest'
import type { Config } from '../config/config.js'
import { EncodedTasks } from './encoded.js'
import { MISSED_CAP, type LiveState } from './health.js'
import { MissedOccurrences } from './missed.js'
import { hourlyTask } from './task.fixture.js'
import type { TaskDocument, TaskRecord } from './record.js'

// Cron runs in the local time zone; hourly boundaries below assume a whole-hour offset.
process.env.TZ = 'UTC'

const POLL = 1000
const task = hourlyTask
const docOf = (tasks: TaskRecord[], generation = 1): TaskDocument => ({ store_generation: generation, tasks, runs: [] })

/** An encoder on a clock and live state the test moves by hand. */
function encoder() {
  const state = { now: new Date('2026-01-01T00:40:00Z'), live: {} as LiveState, liveVersion: 0 }
  const config = { get: () => POLL } as unknown as Config
  const encoded = new EncodedTasks({ now: () => state.now }, config, { of: () => state.live, version: () => state.liveVersion }, new MissedOccurrences(MISSED_CAP))
  const list = (doc: TaskDocument) => {
    const json = encoded.listJson(doc)
    return { json, tasks: (JSON.parse(json) as { tasks: Array<Record<string, unknown>> }).tasks }
  }
  return { state, list }
}

it('answers the very same text while nothing moved', () => {
  const { list } = encoder()
  const doc = docOf([task({})])
  expect(list(doc).json).toBe(list(doc).json)
})

it('lists a task as derived again for another reader meanwhile (the event feed), not as the list before', () => {
  const state = { now: new Date('2026-01-01T01:00:00.500Z') }
  const config = { get: () => POLL } as unknown as Config
  const encoded = new EncodedTasks({ now: () => state.now }, config, { of: () => ({}), version: () => 0 }, new MissedOccurrences(MISSED_CAP))
  const doc = docOf([task({})])
  expect(encoded.listJson(doc)).toContain('"overdue":false')
  state.now = new Date('2026-01-01T01:00:01.500Z')
  expect(encoded.encode(doc.tasks[0] as TaskRecord, 0, doc).overdue).toBe(true)
  expect(encoded.listJson(doc)).toContain('"overdue":true')
})

it('derives missed occurrences and overdue again as time passes', () => {
  const { state, list } = encoder()
  const doc = docOf([task({})])
  expect(list(doc).tasks[0]).toMatchObject({ missed_occurrences: 0, overdue: false })
  state.now = new Date('2026-01-01T01:00:00.500Z')
  expect(list(doc).tasks[0]).toMatchObject({ missed_occurrences: 1, overdue: false })
  state.now = new Date('2026-01-01T01:00:01.500Z')
  expect(list(doc).tasks[0]).toMatchObject({ missed_occurrences: 1, overdue: true })
  state.now = new Date('2026-01-01T03:10:00Z')
  expect(list(doc).tasks[0]).toMatchObject({ missed_occurrences: 3, overdue: true })
})

it('follows a run, a store write and the live schedule', () => {
  const { state, list } = encoder()
  state.now = new Date('2026-01-01T02:10:00Z')
  expect(list(docOf([task({})])).tasks[0]).toMatchObject({ missed_occurrences: 2, overdue: true })
  // The run is stored: a new document with the task's last_run_at.
  const ran = docOf([task({ last_run_at: '2026-01-01T02:00:00.100Z' })], 2)
  expect(list(ran).tasks[0]).toMatchObject({ missed_occurrences: 0, overdue: false, store_generation: 2 })
  state.live = { next: new Date('2026-01-01T03:00:00Z') }
  state.liveVersion++
  expect(list(ran).tasks[0]).toMatchObject({ next_run_at: '2026-01-01T03:00:00.000Z' })
  // The scheduler fired: health counts from the firing before the run's result is stored.
  state.now = new Date('2026-01-01T03:00:00.200Z')
  state.live = { next: new Date('2026-01-01T04:00:00Z'), firedAt: new Date('2026-01-01T03:00:00.100Z') }
  state.liveVersion++
  expect(list(ran).tasks[0]).toMatchObject({ missed_occurrences: 0, next_run_at: '2026-01-01T04:00:00.000Z' })
  const disabled = docOf([task({ enabled: false })], 3)
  expect(list(disabled).tasks[0]).toMatchObject({ arming: 'disabled', store_generation: 3 })
})

it('places untouched tasks in a new store generation without deriving their health again, encoded as a whole', () => {
  const { state, list } = encoder()
  const missed = new MissedOccurrences(MISSED_CAP)
  const counted = vi.spyOn(missed, 'count')
  const encoded = new EncodedTasks({ now: () => state.now }, { get: () => POLL } as unknown as Config, { of: () => ({}), version: () => 0 }, missed)
  const [a, b] = [task({ id: 'a' }), task({ id: 'b' })]
  encoded.listJson(docOf([a, b], 1))
  expect(counted).toHaveBeenCalledTimes(2)
  // A write removed `a`: `b` moves to ordinal 0 of generation 2.
  const after = docOf([b], 2)
  const json = encoded.listJson(after)
  expect(counted).toHaveBeenCalledTimes(2)
  expect(json).toBe(list(after).json)
  expect(JSON.parse(json)).toEqual({ tasks: [JSON.parse(JSON.stringify(encoded.encode(b, 0, after)))] })
  expect(encoded.encode(b, 0, after)).toMatchObject({ id: 'b', ordinal: 0, store_generation: 2 })
})

it('checks no task again while the list it answered holds, and derives again once the clock passes a boundary or live state moves', () => {
  const state = { now: new Date('2026-01-01T00:40:00Z'), version: 0 }
  const of = vi.fn(() => ({}))
  const encoded = new EncodedTasks({ now: () => state.now }, { get: () => POLL } as unknown as Config, { of, version: () => state.version }, new MissedOccurrences(MISSED_CAP))
  const doc = docOf([task({}), task({ id: 'second' })])
  const first = encoded.listJson(doc)
  expect(of).toHaveBeenCalledTimes(2)
  state.now = new Date('2026-01-01T00:50:00Z')
  expect(encoded.listJson(doc)).toBe(first)
  expect(of).toHaveBeenCalledTimes(2)
  state.version++
  encoded.listJson(doc)
  expect(of).toHaveBeenCalledTimes(4)
  // Past the hour the task is due: overdue once the poll interval has gone by.
  state.now = new Date('2026-01-01T01:00:05Z')
  expect(encoded.listJson(doc)).toContain('"overdue":true')
})
