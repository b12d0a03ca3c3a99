import type { Tasks } from '@svc/core'
import { PreEncoded, type GroupHandlers } from './group.js'

/** An HTTP caller without `actor` is recorded as `api` (the core's default). */
export function taskRoutes(tasks: Tasks): GroupHandlers<'tasks'> {
  return {
    ListOnComplete: () => tasks.listOnComplete(),
    ListTasks: async () => PreEncoded.of(await tasks.listJson()),
    AddTask: (body) => tasks.add(body),
    UpdateTask: (body) => tasks.update(body),
    RemoveTask: (body) => tasks.remove(body),
    RestartTask: (body) => tasks.restart(body),
    TriggerTask: (body) => tasks.trigger(body),
  }
}
