import type { Fleet, FleetSession } from './fleet.js'
import { stateLook } from './state-look.js'
import { idleWords, projectName, remoteWords } from './words.js'

/** A heading of the session list and the sessions under it, in the order shown. */
export interface FleetGroup {
  key: string
  /** The project's name, or "needs you". */
  name: string
  /** The project's repository; undefined for the group of sessions that need their user. */
  repoPath: string | undefined
  sessions: FleetSession[]
}

export interface FleetOrder {
  /** Words every shown session must contain, any case: title, project, branch, program, state, idle reason, remote host. */
  filter: string
  /** Sessions that need their user first, in a group of their own; otherwise they stay in their project, marked. */
  attentionFirst: boolean
}

export const ATTENTION_GROUP = 'needs you'

function haystack(session: FleetSession): string {
  return [session.title, projectName(session.repo_path), session.branch, session.program, stateLook(session).word, idleWords(session), remoteWords(session)]
    .join(' ')
    .toLowerCase()
}

export function sessionMatches(session: FleetSession, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return true
  const text = haystack(session)
  return words.every((word) => text.includes(word))
}

/** One collator for every comparison: `localeCompare` builds one per call, which shows at 500 sessions. */
const byText = new Intl.Collator().compare

/** Live sessions before archived ones, then by title (Snapshot's order within a repository). */
function bySessionOrder(a: FleetSession, b: FleetSession): number {
  const archived = Number(a.liveness_name === 'archived') - Number(b.liveness_name === 'archived')
  return archived || byText(a.title, b.title)
}

/**
 * The session list as both UIs show it: grouped by project, projects by name, sessions
 * live first and then by title; filtered; those needing their user first on request.
 */
export function fleetGroups(fleet: Fleet, order: FleetOrder): FleetGroup[] {
  const shown = [...fleet.sessions.values()].filter((session) => sessionMatches(session, order.filter))
  const first = order.attentionFirst ? shown.filter((session) => fleet.attention.has(session.id)) : []
  const byProject = new Map<string, FleetSession[]>()
  for (const session of shown) {
    if (order.attentionFirst && fleet.attention.has(session.id)) continue
    const project = byProject.get(session.repo_path)
    if (project) project.push(session)
    else byProject.set(session.repo_path, [session])
  }
  const projects = [...byProject].sort(([a], [b]) => byText(projectName(a), projectName(b)) || byText(a, b))
  const groups: FleetGroup[] = projects.map(([repoPath, sessions]) => ({ key: `project:${repoPath}`, name: projectName(repoPath), repoPath, sessions: sessions.sort(bySessionOrder) }))
  return first.length === 0 ? groups : [{ key: 'attention', name: ATTENTION_GROUP, repoPath: undefined, sessions: first.sort(bySessionOrder) }, ...groups]
}
