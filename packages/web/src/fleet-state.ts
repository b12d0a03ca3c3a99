import type { FeedFrame } from '@svc/protocol/browser'
import type { Session, Task } from './api'

/** What the pages show: one Snapshot and ListTasks, then kept current by the event feed. */
export interface Fleet {
  sessions: Map<string, Session>
  tasks: Map<string, Task>
  /** Sessions that asked for the user (session.attention) and were not opened since. */
  attention: Map<string, string>
  bootId: string
}

export const emptyFleet = (): Fleet => ({ sessions: new Map(), tasks: new Map(), attention: new Map(), bootId: '' })

/**
 * The fleet after a fresh read: attention marks survive for sessions that still exist, and
 * the events that arrived while it was read (`since`) are applied again on top, since the
 * read may predate them: a session created meanwhile is not lost.
 */
export function loaded(fleet: Fleet, sessions: Session[], tasks: Task[], bootId: string, since: readonly FeedFrame[] = []): Fleet {
  const byId = new Map(sessions.map((session) => [session.id, session]))
  const attention = new Map([...fleet.attention].filter(([id]) => byId.has(id)))
  const read: Fleet = { sessions: byId, tasks: new Map(tasks.map((task) => [task.id, task])), attention, bootId }
  return since.reduce(applied, read)
}

/** The fleet after one event; the same object when the frame changes nothing shown. */
export function applied(fleet: Fleet, frame: FeedFrame): Fleet {
  switch (frame.type) {
    case 'session.created':
    case 'session.updated':
    case 'session.archived':
    case 'session.restored':
      return { ...fleet, sessions: new Map(fleet.sessions).set(frame.data.id, frame.data) }
    case 'session.killed': {
      const sessions = new Map(fleet.sessions)
      sessions.delete(frame.data.id)
      const attention = new Map(fleet.attention)
      attention.delete(frame.data.id)
      return { ...fleet, sessions, attention }
    }
    case 'session.attention':
      return { ...fleet, attention: new Map(fleet.attention).set(frame.data.id, frame.data.reason) }
    case 'task.created':
    case 'task.updated':
      return { ...fleet, tasks: new Map(fleet.tasks).set(frame.data.id, frame.data) }
    case 'task.removed': {
      const tasks = new Map(fleet.tasks)
      tasks.delete(frame.data.id)
      return { ...fleet, tasks }
    }
    default:
      return fleet
  }
}

export function seen(fleet: Fleet, sessionId: string): Fleet {
  if (!fleet.attention.has(sessionId)) return fleet
  const attention = new Map(fleet.attention)
  attention.delete(sessionId)
  return { ...fleet, attention }
}

export interface ProjectGroup {
  repoPath: string
  sessions: Session[]
}

/** Sessions grouped by repository, those needing the user first in each, then newest first; `filter` matches title, branch or program. */
export function groups(fleet: Fleet, filter: string): ProjectGroup[] {
  const needle = filter.trim().toLowerCase()
  const byRepo = new Map<string, Session[]>()
  for (const session of fleet.sessions.values()) {
    if (needle && ![session.title, session.branch, session.program, session.liveness_name].some((text) => text.toLowerCase().includes(needle))) continue
    const list = byRepo.get(session.repo_path) ?? []
    list.push(session)
    byRepo.set(session.repo_path, list)
  }
  const rank = (session: Session) => (fleet.attention.has(session.id) ? 0 : 1)
  return [...byRepo]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([repoPath, sessions]) => ({
      repoPath,
      sessions: sessions.sort((a, b) => rank(a) - rank(b) || b.created_at.localeCompare(a.created_at)),
    }))
}
