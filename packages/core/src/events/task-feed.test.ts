import pino from 'pino'
import { expect, it } from 'vitest'
import { hourlyTask } from '../tasks/task.fixture.js'
import type { TaskDocument, TaskWire } from '../tasks/record.js'
import { EventBus } from './bus.js'
import { TaskFeed } from './task-feed.js'

const MINUTE = 60_000

it('sends a change made by time alone at most once per interval per task, and a write at once', () => {
  const bus = new EventBus(pino({ level: 'silent' }))
  bus.start()
  const sent: Array<{ type: string; id: string; overdue?: boolean }> = []
  bus.subscribe((event) => {
    const { id, overdue } = event.data as Pick<TaskWire, 'id' | 'overdue'>
    sent.push({ type: event.type, id, overdue })
  })
  // What time has done to each task so far: the encoder reads it, as the live scheduler's state is read.
  const overdue = new Map<string, boolean>()
  const feed = new TaskFeed(
    bus,
    (task) => {
      const wire = { ...task, overdue: overdue.get(task.id) ?? false } as unknown as TaskWire
      return { wire, json: JSON.stringify(wire), content: JSON.stringify(wire) }
    },
    MINUTE,
  )
  const doc: TaskDocument = { store_generation: 1, tasks: [hourlyTask({ id: 'a' }), hourlyTask({ id: 'b' })], runs: [] }
  feed.adopted(doc)
  expect(sent).toEqual([
    { type: 'task.created', id: 'a', overdue: false },
    { type: 'task.created', id: 'b', overdue: false },
  ])
  sent.length = 0

  // Nothing moved: nothing to send, nothing held.
  expect(feed.turned(doc, 0)).toBe(Number.POSITIVE_INFINITY)
  overdue.set('a', true)
  expect(feed.turned(doc, 1_000)).toBe(Number.POSITIVE_INFINITY)
  expect(sent).toEqual([{ type: 'task.updated', id: 'a', overdue: true }])

  // Time moves both again within the minute: b goes, a waits for its minute.
  overdue.set('a', false)
  overdue.set('b', true)
  expect(feed.turned(doc, 11_000)).toBe(1_000 + MINUTE)
  expect(sent.slice(1)).toEqual([{ type: 'task.updated', id: 'b', overdue: true }])
  expect(feed.turned(doc, 1_000 + MINUTE - 1)).toBe(1_000 + MINUTE)
  expect(sent).toHaveLength(2)
  expect(feed.turned(doc, 1_000 + MINUTE)).toBe(Number.POSITIVE_INFINITY)
  expect(sent.slice(2)).toEqual([{ type: 'task.updated', id: 'a', overdue: false }])

  // A write is news at once, whatever time did a moment ago; a task the feed has not created yet waits for its adoption.
  const edited: TaskDocument = { ...doc, tasks: [hourlyTask({ id: 'a', prompt: 'edited' }), ...doc.tasks.slice(1), hourlyTask({ id: 'c' })] }
  expect(feed.turned(edited, 1_000 + MINUTE + 1)).toBe(1_000 + 2 * MINUTE)
  expect(sent).toHaveLength(3)
  feed.adopted(edited)
  expect(sent.slice(3).map((event) => `${event.type} ${event.id}`)).toEqual(['task.updated a', 'task.created c'])
})
