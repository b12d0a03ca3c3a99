import { describe, expect, it } from 'vitest'
import type { Session } from './api'
import { applied, emptyFleet, groups, loaded, seen } from './fleet-state'

function session(id: string, fields: Partial<Session> = {}): Session {
  return {
    id,
    title: id,
    repo_path: '/r/one',
    branch: `agent/${id}`,
    program: 'claude',
    liveness_name: 'ready',
    created_at: '2026-11-24T10:00:00Z',
    ...fields,
  } as Session
}

describe('the fleet as events change it', () => {
  it('adds, updates and removes sessions, and keeps the same object for a frame that changes nothing', () => {
    let fleet = loaded(emptyFleet(), [session('a')], [], 'boot')
    fleet = applied(fleet, { type: 'session.created', seq: 1, data: session('b') })
    fleet = applied(fleet, { type: 'session.updated', seq: 2, data: session('a', { liveness_name: 'running' }) })
    expect([...fleet.sessions.keys()].sort()).toEqual(['a', 'b'])
    expect(fleet.sessions.get('a')?.liveness_name).toBe('running')
    fleet = applied(fleet, { type: 'session.killed', seq: 3, data: { id: 'b', title: 'b', repo_id: 'r' } })
    expect([...fleet.sessions.keys()]).toEqual(['a'])
    expect(applied(fleet, { type: 'projects.changed', seq: 4 })).toBe(fleet)
  })

  it('keeps a session created while a fresh read was in flight, which the read predates', () => {
    const created = { type: 'session.created', seq: 7, data: session('new') } as const
    const fleet = loaded(emptyFleet(), [session('a')], [], 'boot', [created])
    expect([...fleet.sessions.keys()].sort()).toEqual(['a', 'new'])
  })

  it('marks a session that needs the user until it is seen, and drops the mark when it is killed or gone on reload', () => {
    let fleet = loaded(emptyFleet(), [session('a'), session('b')], [], 'boot')
    fleet = applied(fleet, { type: 'session.attention', seq: 1, data: { id: 'a', title: 'a', repo_id: 'r', reason: 'settled' } })
    fleet = applied(fleet, { type: 'session.attention', seq: 2, data: { id: 'b', title: 'b', repo_id: 'r', reason: 'usage-limit' } })
    expect(fleet.attention.get('b')).toBe('usage-limit')
    fleet = seen(fleet, 'a')
    expect([...fleet.attention.keys()]).toEqual(['b'])
    expect(loaded(fleet, [session('a')], [], 'boot').attention.size).toBe(0)
  })

  it('groups by repository, those needing the user first, then newest first, and filters', () => {
    let fleet = loaded(
      emptyFleet(),
      [
        session('old', { created_at: '2026-11-24T09:00:00Z' }),
        session('new', { created_at: '2026-11-24T11:00:00Z' }),
        session('waiting', { created_at: '2026-11-24T08:00:00Z' }),
        session('other', { repo_path: '/r/two', program: 'codex' }),
      ],
      [],
      'boot',
    )
    fleet = applied(fleet, { type: 'session.attention', seq: 1, data: { id: 'waiting', title: 'waiting', repo_id: 'r', reason: 'settled' } })
    expect(groups(fleet, '').map((group) => [group.repoPath, group.sessions.map((s) => s.id)])).toEqual([
      ['/r/one', ['waiting', 'new', 'old']],
      ['/r/two', ['other']],
    ])
    expect(groups(fleet, 'CODEX').map((group) => group.sessions.map((s) => s.id))).toEqual([['other']])
  })
})
