import type { AttentionReason, FeedFrame } from '@svc/protocol'
import type { Project, Session, Task } from './types.js'

/** What the daemon last told this client; replaced whole by a resync, patched by each event. */
export interface Fleet {
  sessions: ReadonlyMap<string, Session>
  tasks: ReadonlyMap<string, Task>
  projects: readonly Project[]
  /** Sessions that asked for their user and have not been looked at since. */
  attention: ReadonlyMap<string, AttentionReason>
}

export const EMPTY_FLEET: Fleet = { sessions: new Map(), tasks: new Map(), projects: [], attention: new Map() }

/** A fresh read of Snapshot, ListTasks and ListProjects; attention marks outlive it. */
export function resynced(fleet: Fleet, sessions: Session[], tasks: Task[], projects: Project[]): Fleet {
  const byId = new Map(sessions.map((session) => [session.id, session]))
  const attention = new Map([...fleet.attention].filter(([id]) => byId.has(id)))
  return { sessions: byId, tasks: new Map(tasks.map((task) => [task.id, task])), projects, attention }
}

function without<V>(map: ReadonlyMap<string, V>, id: string): Map<string, V> {
  const next = new Map(map)
  next.delete(id)
  return next
}

function withEntry<V>(map: ReadonlyMap<string, V>, id: string, value: V): Map<string, V> {
  return new Map(map).set(id, value)
}

/** The fleet after one event frame. Hello and `projects.changed` call for a read instead (see `needsResync`). */
export function applyFrame(fleet: Fleet, frame: FeedFrame): Fleet {
  switch (frame.type) {
    case 'session.created':
    case 'session.updated':
    case 'session.archived':
    case 'session.restored':
      return { ...fleet, sessions: withEntry(fleet.sessions, frame.data.id, frame.data) }
    case 'session.killed':
      return { ...fleet, sessions: without(fleet.sessions, frame.data.id), attention: without(fleet.attention, frame.data.id) }
    case 'session.attention':
      return { ...fleet, attention: withEntry(fleet.attention, frame.data.id, frame.data.reason) }
    case 'task.created':
    case 'task.updated':
      return { ...fleet, tasks: withEntry(fleet.tasks, frame.data.id, frame.data) }
    case 'task.removed':
      return { ...fleet, tasks: without(fleet.tasks, frame.data.id) }
    default:
      return fleet
  }
}

/** A hello means events may have been missed (a reconnect); projects have no event carrying them. */
export function needsResync(frame: FeedFrame): boolean {
  return frame.type === 'hello' || frame.type === 'projects.changed'
}

/** The session has been looked at: its mark goes. */
export function seen(fleet: Fleet, id: string): Fleet {
  return fleet.attention.has(id) ? { ...fleet, attention: without(fleet.attention, id) } : fleet
}
