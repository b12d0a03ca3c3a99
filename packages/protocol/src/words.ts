import type { IdleReason } from './vocab.js'

/**
 * What people read for a session's state: both people-facing clients (the terminal UI
 * and the web UI) show these, so a reason reads the same in each.
 */
const IDLE_WORDS: Record<IdleReason, string> = {
  'usage-limit': 'usage limit',
  'process-exited': 'the agent exited',
  'restore-gave-up': 'restore gave up',
  'recreate-pending': 'waiting: restore to apply the new program',
  'prompt-not-delivered': 'waiting: prompt not delivered',
  'delivery-unconfirmed': 'waiting: prompt delivery unconfirmed',
  'no-pane-change-since-delivery': 'waiting: no reply to the prompt yet',
  'settled-after-pane-change': 'done: your turn',
  'agent-asks': 'asks you something',
}

/** `idle_reason` in plain words; "" when the session has none. */
export function idleWords(session: {
  idle_reason?: IdleReason | undefined
  lost_restore_failure?: { attempts: number; error: string } | undefined
}): string {
  if (session.idle_reason === undefined) return ''
  const failure = session.lost_restore_failure
  if (session.idle_reason === 'restore-gave-up' && failure) return `restore gave up after ${failure.attempts} attempts: ${failure.error}`
  return IDLE_WORDS[session.idle_reason]
}

const UNITS: Array<[number, string]> = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1_000, 's'],
]

/** A span of time in its largest whole unit: "12s", "5m", "3h", "2d". */
export function duration(ms: number): string {
  const span = Math.max(0, ms)
  const [size, unit] = UNITS.find(([size]) => span >= size) ?? [1_000, 's']
  return `${Math.floor(span / size)}${unit}`
}

/** How long ago `at` was; "-" for never. */
export function age(at: string | undefined, now: number): string {
  return at === undefined ? '-' : duration(now - Date.parse(at))
}

/** How long ago `at` was, for people: "just now" under a minute (or ahead, a skewed clock), else "5m ago", "3h ago". */
export function ago(at: string, now: number): string {
  const span = now - Date.parse(at)
  if (Number.isNaN(span)) return at
  return span < 60_000 ? 'just now' : `${duration(span)} ago`
}

/** Where a remote session runs, for people: "in docker" for a container, else "on <host>". */
function placeWords(session: { remote_host?: string | undefined; backend?: string }): string {
  return session.backend === 'docker' ? 'in docker' : `on ${session.remote_host}`
}

/** Where a session runs, for people: "" on this machine, else "in docker" or "on <host>", ", unreachable" while it does not answer. */
export function remoteWords(session: { remote_host?: string | undefined; remote_unreachable?: boolean | undefined; remote_path?: string | undefined; liveness_name?: string; backend?: string }): string {
  if (session.remote_host === undefined) return ''
  // Lost with a place: work its host kept because it could not be put on origin.
  if (session.liveness_name === 'lost' && session.remote_path) return `${placeWords(session)}, its work kept at ${session.remote_path}`
  return `${placeWords(session)}${session.remote_unreachable ? ', unreachable' : ''}`
}

/** What ends a remote session once its work is on origin: what svc made there, or the repository's delete_cmd. */
function remoteEnd(session: { remote_host?: string | undefined; backend?: string }): string {
  if (session.backend === 'docker') return 'its container is removed'
  if (session.backend === 'ssh') return `its workspace on ${session.remote_host} is removed`
  return `its session on ${session.remote_host} is ended, the repository's delete_cmd is run`
}

/** What a kill deletes, said before it is confirmed. */
export function killWords(session: { path: string; branch: string; in_place: boolean; remote_host?: string | undefined; backend?: string }): string {
  const ends =
    session.remote_host !== undefined
      ? `its work is pushed to its branch ${session.branch} on origin first (a kill that cannot push it deletes nothing), then ${remoteEnd(session)}`
      : session.in_place
        ? `the checkout ${session.path} is kept`
        : `its worktree ${session.path} and its branch ${session.branch} are deleted`
  return `Its agent and tabs are stopped, ${ends}, and the session is forgotten. This cannot be undone.`
}

/** What removing a task deletes, said before it is confirmed. */
export function removeTaskWords(task: { name: string; cron_expr: string; watch_cmd: string }): string {
  const stops = task.cron_expr ? `its schedule ${task.cron_expr} fires no more` : `its watch command ${task.watch_cmd} is stopped`
  return `The task ${task.name} is deleted and ${stops}. Sessions it started are kept. This cannot be undone.`
}

/**
 * What forgetting a project does to its sessions (DeleteProject), said before it is
 * confirmed: live worktree sessions are archived, in-place ones killed, the repository kept.
 */
export function deleteProjectWords(
  root: string,
  sessions: ReadonlyArray<{ title: string; in_place: boolean; liveness_name: string }>,
): string {
  const titles = (picked: typeof sessions) => picked.map((session) => session.title).join(', ')
  const archived = sessions.filter((session) => !session.in_place && session.liveness_name !== 'archived')
  const killed = sessions.filter((session) => session.in_place)
  const gone = [
    archived.length > 0 ? `its sessions ${titles(archived)} are archived (Restore brings them back)` : '',
    killed.length > 0 ? `its in-place sessions ${titles(killed)} are killed (their checkout is kept)` : '',
  ].filter(Boolean)
  const leaves = gone.length > 0 ? `${gone.join(', ')}, and it leaves the project list` : 'it has no session to archive; it leaves the project list'
  return `${leaves[0]?.toUpperCase()}${leaves.slice(1)}. The repository ${root} itself is untouched.`
}

/** A project's name for people: its checkout directory's name. */
export function projectName(repoPath: string): string {
  return repoPath.replace(/\/+$/, '').split('/').pop() || repoPath
}
