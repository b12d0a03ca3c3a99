import type { Static } from 'typebox'
import type { Session } from './schemas/sessions.js'
import type { Task } from './schemas/tasks.js'

/** The event plane: a WebSocket, server to client only, one JSON text frame per event. */
export const EVENTS_PATH = '/v1/events'
/** Frames a subscriber may have waiting; one more closes it with EVENTS_OVERFLOW_CODE. */
export const EVENTS_QUEUE_FRAMES = 256
export const EVENTS_OVERFLOW_CODE = 1013
export const EVENTS_OVERFLOW_REASON = 'event subscriber overflow'
export const EVENTS_PING_MS = 15_000

export type AttentionReason = 'settled' | 'usage-limit' | 'prompt-not-delivered' | 'agent-asks'

/** What each kind carries; `undefined`: the frame has no `data`. */
export interface EventData {
  'session.created': Static<typeof Session>
  'session.updated': Static<typeof Session>
  'session.archived': Static<typeof Session>
  'session.restored': Static<typeof Session>
  'session.killed': { id: string; title: string; repo_id: string }
  'session.attention': { id: string; title: string; repo_id: string; reason: AttentionReason }
  'task.created': Static<typeof Task>
  'task.updated': Static<typeof Task>
  'task.removed': { id: string }
  'projects.changed': undefined
  'config.changed': { key: string }
}

export type EventKind = keyof EventData

export const EVENT_KINDS: readonly EventKind[] = [
  'session.created',
  'session.updated',
  'session.archived',
  'session.restored',
  'session.killed',
  'session.attention',
  'task.created',
  'task.updated',
  'task.removed',
  'projects.changed',
  'config.changed',
]

/** One event as sent: `seq` counts events since the daemon started. */
export type EventFrame = {
  [K in EventKind]: EventData[K] extends undefined ? { type: K; seq: number } : { type: K; seq: number; data: EventData[K] }
}[EventKind]

/**
 * The first frame of every connection: the daemon's boot and the last `seq` sent. The
 * feed has no replay, so a client re-reads Snapshot and ListTasks after each hello.
 */
export interface HelloFrame {
  type: 'hello'
  data: { boot_id: string; seq: number }
}

export type FeedFrame = HelloFrame | EventFrame

/** `kinds` entries are kinds or prefixes ending in a dot (`session.`). */
export function kindMatches(kind: string, kinds: readonly string[]): boolean {
  return kinds.length === 0 || kinds.some((wanted) => (wanted.endsWith('.') ? kind.startsWith(wanted) : kind === wanted))
}
