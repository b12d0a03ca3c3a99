import type { AttentionReason, EventFrame } from './events.js'
import type { RequestOf, ResponseOf, RouteName } from './routes/index.js'

export type FleetSession = ResponseOf<'Snapshot'>['instances'][number]
export type FleetTask = ResponseOf<'ListTasks'>['tasks'][number]
export type FleetProject = ResponseOf<'ListProjects'>['projects'][number]

/**
 * The fleet as a client shows it, the same for the terminal UI and the web UI: what the
 * daemon last said, replaced whole by a read (Snapshot, ListTasks, ListProjects) and
 * patched by each event frame. Never changed in place: each change is a new object.
 */
export interface Fleet {
  sessions: ReadonlyMap<string, FleetSession>
  tasks: ReadonlyMap<string, FleetTask>
  projects: readonly FleetProject[]
  /** Sessions that asked for their user (`session.attention`) and have not been looked at since. */
  attention: ReadonlyMap<string, AttentionReason>
  /** The daemon boot the last read came from; "" before the first. */
  bootId: string
}

export const EMPTY_FLEET: Fleet = { sessions: new Map(), tasks: new Map(), projects: [], attention: new Map(), bootId: '' }

/** One read of the daemon's state. */
export interface FleetRead {
  sessions: FleetSession[]
  tasks: FleetTask[]
  projects: FleetProject[]
  bootId: string
}

/** The Node client and the browser client alike. */
export interface FleetCaller {
  call<N extends RouteName>(name: N, body?: RequestOf<N>): Promise<ResponseOf<N>>
}

export async function readFleet(client: FleetCaller): Promise<FleetRead> {
  const [snapshot, { tasks }, { projects }] = await Promise.all([client.call('Snapshot', {}), client.call('ListTasks', {}), client.call('ListProjects', {})])
  return { sessions: snapshot.instances, tasks, projects, bootId: snapshot.boot_id }
}

/**
 * The fleet after a read. Attention marks are not in a read: those of sessions still there
 * stay. `since`, the frames that arrived while the read was under way, are applied again
 * on top, since the read may predate them (a session created meanwhile is not lost).
 */
export function resynced(fleet: Fleet, read: FleetRead, since: readonly EventFrame[] = []): Fleet {
  const sessions = new Map(read.sessions.map((session) => [session.id, session]))
  const attention = new Map([...fleet.attention].filter(([id]) => sessions.has(id)))
  const fresh: Fleet = { sessions, tasks: new Map(read.tasks.map((task) => [task.id, task])), projects: read.projects, attention, bootId: read.bootId }
  return since.reduce(applyFrame, fresh)
}

function without<V>(map: ReadonlyMap<string, V>, id: string): ReadonlyMap<string, V> {
  if (!map.has(id)) return map
  const next = new Map(map)
  next.delete(id)
  return next
}

function withEntry<V>(map: ReadonlyMap<string, V>, id: string, value: V): Map<string, V> {
  return new Map(map).set(id, value)
}

/**
 * The fleet after one event; the same object when the event changes nothing a client
 * shows. `projects.changed` carries no data: it calls for a read (see FleetFollower).
 */
export function applyFrame(fleet: Fleet, frame: EventFrame): Fleet {
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
    case 'projects.changed':
    case 'config.changed':
      return fleet
  }
}

/** The session has been looked at: its mark goes. */
export function seen(fleet: Fleet, id: string): Fleet {
  return fleet.attention.has(id) ? { ...fleet, attention: without(fleet.attention, id) } : fleet
}
