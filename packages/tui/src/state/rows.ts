import type { AttentionReason } from '@svc/protocol'
import type { Fleet } from './fleet.js'
import type { Session } from './types.js'
import { idleWords, projectName, remoteWords, stateLook } from './words.js'

export type Row =
  | { kind: 'group'; key: string; name: string; count: number }
  | { kind: 'session'; key: string; session: Session; attention: AttentionReason | undefined }

export interface RowOptions {
  /** Words every shown session must contain (title, project, branch, program, state, remote host), any case. */
  filter: string
  /** Sessions needing their user first, in a group of their own. */
  attentionFirst: boolean
}

const ATTENTION_GROUP = 'needs you'

function haystack(session: Session): string {
  return [session.title, projectName(session.repo_path), session.branch, session.program, stateLook(session).word, idleWords(session), remoteWords(session)]
    .join(' ')
    .toLowerCase()
}

export function matches(session: Session, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return true
  const text = haystack(session)
  return words.every((word) => text.includes(word))
}

/** One collator for every comparison: `localeCompare` builds one per call, which shows at 500 sessions. */
const byText = new Intl.Collator().compare

/** Live sessions before archived ones, then by title. */
function bySessionOrder(a: Session, b: Session): number {
  const archived = Number(a.liveness_name === 'archived') - Number(b.liveness_name === 'archived')
  return archived || byText(a.title, b.title)
}

function group(key: string, name: string, sessions: Session[], fleet: Fleet): Row[] {
  if (sessions.length === 0) return []
  return [
    { kind: 'group', key: `group:${key}`, name, count: sessions.length },
    ...sessions
      .sort(bySessionOrder)
      .map((session): Row => ({ kind: 'session', key: session.id, session, attention: fleet.attention.get(session.id) })),
  ]
}

/** The list as shown: sessions grouped by project (groups by name), filtered, attention first on request. */
export function sessionRows(fleet: Fleet, options: RowOptions): Row[] {
  const shown = [...fleet.sessions.values()].filter((session) => matches(session, options.filter))
  const first = options.attentionFirst ? shown.filter((session) => fleet.attention.has(session.id)) : []
  const firstIds = new Set(first.map((session) => session.id))
  const byProject = new Map<string, Session[]>()
  for (const session of shown) {
    if (firstIds.has(session.id)) continue
    const project = byProject.get(session.repo_path)
    if (project) project.push(session)
    else byProject.set(session.repo_path, [session])
  }
  const projects = [...byProject].sort(([a], [b]) => byText(projectName(a), projectName(b)) || byText(a, b))
  return [group(ATTENTION_GROUP, ATTENTION_GROUP, first, fleet), ...projects.map(([path, sessions]) => group(path, projectName(path), sessions, fleet))].flat()
}

/** The session rows' ids, in order: what up and down move through. */
export function sessionIds(rows: readonly Row[]): string[] {
  return rows.flatMap((row) => (row.kind === 'session' ? [row.session.id] : []))
}

/** The selection after moving `step` rows from `current`; the first session when the current one is gone. */
export function moveSelection(rows: readonly Row[], current: string | undefined, step: number): string | undefined {
  const ids = sessionIds(rows)
  const at = current === undefined ? -1 : ids.indexOf(current)
  if (at === -1) return ids[0]
  return ids[Math.min(ids.length - 1, Math.max(0, at + step))]
}

/** The rows that fit in `height`, scrolled so the selected one shows with its group header when it can. */
export function visibleWindow(rows: readonly Row[], selected: string | undefined, height: number): Row[] {
  if (rows.length <= height) return [...rows]
  const at = Math.max(0, rows.findIndex((row) => row.kind === 'session' && row.key === selected))
  const start = Math.min(Math.max(0, at - Math.floor(height / 2)), rows.length - height)
  return rows.slice(start, start + height)
}
