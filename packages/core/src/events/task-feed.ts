import type { TaskChanges, TaskEncoder, TaskFeedFactory } from '../tasks/announcements.js'
import type { TaskDocument } from '../tasks/record.js'
import type { EventBus } from './bus.js'

/** The task feed the task engine makes for itself, publishing to `bus`. */
export function taskFeed(bus: EventBus): TaskFeedFactory {
  return (encode, turnMs) => new TaskFeed(bus, encode, turnMs)
}

/**
 * Task events: each adopted document is compared, task by task, with what ListTasks
 * showed at the one before; a task whose encoding changed is sent, one that is gone is
 * removed. A read that adopts nothing new sends nothing. The placement (store_generation,
 * which every write bumps in every task, and the ordinal, which a removal shifts) is not
 * compared: a write sends the tasks it changed, placed as they are now, not the whole list
 * to every subscriber. Between documents, time alone
 * moves schedule health (next_run_at, overdue, missed occurrences): such a change is
 * sent too, but at most once per `turnMs` per task.
 */
export class TaskFeed implements TaskChanges {
  /** Each task's content as last sent. */
  private readonly sent = new Map<string, string>()
  /** When each task's last change made by time alone was sent. */
  private readonly turnedAt = new Map<string, number>()

  constructor(
    private readonly bus: EventBus,
    private readonly encode: TaskEncoder,
    private readonly turnMs: number,
  ) {}

  adopted(doc: TaskDocument): void {
    const gone = new Set(this.sent.keys())
    for (const [ordinal, task] of doc.tasks.entries()) {
      gone.delete(task.id)
      // Not destructured: the wire object and text are made only for a task that is sent.
      const encoded = this.encode(task, ordinal, doc)
      const before = this.sent.get(task.id)
      if (before === encoded.content) continue
      this.sent.set(task.id, encoded.content)
      this.bus.publish(before === undefined ? 'task.created' : 'task.updated', encoded.wire, encoded.json)
    }
    for (const id of gone) {
      this.sent.delete(id)
      this.turnedAt.delete(id)
      this.bus.publish('task.removed', { id })
    }
  }

  /**
   * Sends the tasks of `doc`, adopted already, whose encoding changed with time alone,
   * each no sooner than `turnMs` after the last such change of it. Returns when the
   * earliest one held back may go (infinity when none is).
   */
  turned(doc: TaskDocument, now: number): number {
    let held = Number.POSITIVE_INFINITY
    for (const [ordinal, task] of doc.tasks.entries()) {
      const before = this.sent.get(task.id)
      // A task not announced yet is the next adoption's to create.
      if (before === undefined) continue
      const encoded = this.encode(task, ordinal, doc)
      if (before === encoded.content) continue
      const allowed = (this.turnedAt.get(task.id) ?? Number.NEGATIVE_INFINITY) + this.turnMs
      if (now < allowed) {
        held = Math.min(held, allowed)
        continue
      }
      this.sent.set(task.id, encoded.content)
      this.turnedAt.set(task.id, now)
      this.bus.publish('task.updated', encoded.wire, encoded.json)
    }
    return held
  }
}
