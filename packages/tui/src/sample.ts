import { EMPTY_FLEET, resynced, type Fleet } from '@svc/protocol'
import type { Session } from './state/types.js'

const NOW = Date.parse('2026-01-01T12:00:00Z')

/**
 * A session as Snapshot encodes it, for component tests and the render bench; `overrides`
 * sets what the test is about.
 */
export function sampleSession(overrides: Partial<Session> = {}): Session {
  const title = overrides.title ?? 'brave-otter'
  const repo = overrides.repo_path ?? '/home/me/src/shop'
  const path = `${repo}-${title}`
  return {
    id: `id-${title}`,
    title,
    repo_id: 'r0123456789abcdef',
    repo_path: repo,
    path,
    branch: `me/${title}`,
    program: 'claude',
    account: '',
    backend: 'local',
    in_place: false,
    created_at: new Date(NOW - 3_600_000).toISOString(),
    updated_at: new Date(NOW - 60_000).toISOString(),
    status: 0,
    status_name: 'running',
    liveness: 1,
    liveness_name: 'running',
    tabs: [{ kind: 0, kind_name: 'agent', name: 'agent' }],
    tab_kinds: [],
    last_pane_churn_at: new Date(NOW - 12_000).toISOString(),
    boot_id: 'boot',
    worktree: { repo_path: repo, path, branch: `me/${title}`, base_sha: '' },
    can_kill: true,
    can_handoff: true,
    is_root: false,
    ...overrides,
  }
}

/** `count` sessions spread over ten projects, in every state a list shows. */
export function sampleSessions(count: number, churnAt = NOW): Session[] {
  const states = [
    { liveness_name: 'running', idle_reason: undefined },
    { liveness_name: 'ready', idle_reason: 'settled-after-pane-change' },
    { liveness_name: 'limit-reached', idle_reason: 'usage-limit' },
    { liveness_name: 'ready', idle_reason: 'prompt-not-delivered' },
  ] as const
  return Array.from({ length: count }, (_, index) =>
    sampleSession({
      title: `session-${String(index).padStart(3, '0')}`,
      repo_path: `/home/me/src/project-${index % 10}`,
      ...states[index % states.length],
      last_pane_churn_at: new Date(churnAt - index * 1_000).toISOString(),
    }),
  )
}

/** A fleet of `sessions`, as one read makes it. */
export function sampleFleet(sessions: Session[]): Fleet {
  return resynced(EMPTY_FLEET, { sessions, tasks: [], projects: [], bootId: 'boot' })
}

export const SAMPLE_NOW = NOW
