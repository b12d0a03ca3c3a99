import type { TaskDocument, TaskRecord, TaskWire } from '../tasks/record.js'
import type { EventBus } from './bus.js'

/** A task as ListTasks encodes it, and that encoding as text. */
export type TaskEncoder = (task: TaskRecord, ordinal: number, doc: TaskDocument) => { wire: TaskWire; json: string }

/**
 * Task events: each adopted document is compared, task by task, with what ListTasks
 * showed at the one before; a task whose encoding changed is sent, one that is gone is
 * removed. A read that adopts nothing new sends nothing.
 */
export class TaskFeed {
  private readonly sent = new Map<string, string>()

  constructor(
    private readonly bus: EventBus,
    private readonly encode: TaskEncoder,
  ) {}

  adopted(doc: TaskDocument): void {
    const gone = new Set(this.sent.keys())
    for (const [ordinal, task] of doc.tasks.entries()) {
      gone.delete(task.id)
      const { wire, json } = this.encode(task, ordinal, doc)
      const before = this.sent.get(task.id)
      if (before === json) continue
      this.sent.set(task.id, json)
      this.bus.publish(before === undefined ? 'task.created' : 'task.updated', wire, json)
    }
    for (const id of gone) {
      this.sent.delete(id)
      this.bus.publish('task.removed', { id })
    }
  }
}
