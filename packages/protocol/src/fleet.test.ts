import { describe, expect, it } from 'vitest'
import type { AttentionReason, EventFrame } from './events.js'
import { FleetFollower, type FleetChange } from './fleet-follower.js'
import { fleetGroups, type FleetGroup } from './fleet-order.js'
import { applyFrame, EMPTY_FLEET, resynced, seen, type Fleet, type FleetRead, type FleetSession, type FleetTask } from './fleet.js'

function session(title: string, fields: Partial<FleetSession> = {}): FleetSession {
  return {
    id: `id-${title}`,
    title,
    repo_id: 'r0123456789a',
    repo_path: '/src/shop',
    path: `/src/shop-${title}`,
    branch: `me/${title}`,
    program: 'claude',
    liveness_name: 'ready',
    status_name: 'ready',
    created_at: '2026-11-24T10:00:00Z',
    tabs: [],
    ...fields,
  } as FleetSession
}

const task = (id: string, fields: Partial<FleetTask> = {}) => ({ id, name: id, enabled: true, ...fields }) as FleetTask
const read = (sessions: FleetSession[], fields: Partial<FleetRead> = {}): FleetRead => ({ sessions, tasks: [], projects: [], bootId: 'boot', ...fields })
const attention = (target: FleetSession, reason: AttentionReason, seq = 1): EventFrame => ({
  type: 'session.attention',
  seq,
  data: { id: target.id, title: target.title, repo_id: target.repo_id, reason },
})
const killed = (target: FleetSession, seq = 1): EventFrame => ({ type: 'session.killed', seq, data: { id: target.id, title: target.title, repo_id: target.repo_id } })
const ids = (fleet: Fleet) => [...fleet.sessions.keys()].sort()

describe('the fleet after each event', () => {
  const otter = session('otter')
  const heron = session('heron')
  const fleet = resynced(EMPTY_FLEET, read([otter, heron], { tasks: [task('nightly')], projects: [{ id: 'p', root: '/src/shop', path_exists: true, config_trusted: true }] }))

  it('takes a read whole: sessions, tasks, projects and its boot', () => {
    expect([ids(fleet), [...fleet.tasks.keys()], fleet.projects.map((project) => project.root), fleet.bootId]).toEqual([[heron.id, otter.id], ['nightly'], ['/src/shop'], 'boot'])
  })

  it('adds, replaces and removes sessions on every session kind, never changing the fleet it was given', () => {
    const kiwi = session('kiwi')
    let next = applyFrame(fleet, { type: 'session.created', seq: 1, data: kiwi })
    next = applyFrame(next, { type: 'session.updated', seq: 2, data: { ...otter, liveness_name: 'running' } })
    next = applyFrame(next, { type: 'session.archived', seq: 3, data: { ...heron, liveness_name: 'archived' } })
    expect(ids(next)).toEqual([heron.id, kiwi.id, otter.id])
    expect([next.sessions.get(otter.id)?.liveness_name, next.sessions.get(heron.id)?.liveness_name]).toEqual(['running', 'archived'])
    next = applyFrame(next, { type: 'session.restored', seq: 4, data: { ...heron, liveness_name: 'running' } })
    expect(next.sessions.get(heron.id)?.liveness_name).toBe('running')
    next = applyFrame(next, killed(kiwi, 5))
    expect(ids(next)).toEqual([heron.id, otter.id])
    expect(fleet.sessions.get(otter.id)?.liveness_name).toBe('ready')
    expect(ids(fleet)).toEqual([heron.id, otter.id])
  })

  it('adds, replaces and removes tasks', () => {
    let next = applyFrame(fleet, { type: 'task.created', seq: 1, data: task('weekly') })
    next = applyFrame(next, { type: 'task.updated', seq: 2, data: task('nightly', { enabled: false }) })
    expect([[...next.tasks.keys()].sort(), next.tasks.get('nightly')?.enabled]).toEqual([['nightly', 'weekly'], false])
    next = applyFrame(next, { type: 'task.removed', seq: 3, data: { id: 'nightly' } })
    expect([...next.tasks.keys()]).toEqual(['weekly'])
  })

  it('keeps the same object for a frame that changes nothing shown (projects.changed calls for a read instead)', () => {
    expect(applyFrame(fleet, { type: 'projects.changed', seq: 1 })).toBe(fleet)
    expect(applyFrame(fleet, { type: 'config.changed', seq: 2, data: { key: 'default_program' } })).toBe(fleet)
    expect(seen(fleet, otter.id)).toBe(fleet)
  })

  it('marks a session that needs its user until it is seen or killed', () => {
    let next = applyFrame(fleet, attention(otter, 'settled'))
    next = applyFrame(next, attention(heron, 'usage-limit', 2))
    expect([...next.attention]).toEqual([
      [otter.id, 'settled'],
      [heron.id, 'usage-limit'],
    ])
    expect([...seen(next, otter.id).attention.keys()]).toEqual([heron.id])
    expect([...applyFrame(next, killed(heron, 3)).attention.keys()]).toEqual([otter.id])
  })

  it('keeps the marks of sessions a later read still has, and drops the others', () => {
    const marked = applyFrame(applyFrame(fleet, attention(otter, 'settled')), attention(heron, 'prompt-not-delivered', 2))
    const again = resynced(marked, read([heron]))
    expect([...again.attention]).toEqual([[heron.id, 'prompt-not-delivered']])
  })

  it('applies again on top of a read the events that came while it was under way', () => {
    const kiwi = session('kiwi')
    const next = resynced(fleet, read([otter]), [{ type: 'session.created', seq: 7, data: kiwi }, killed(otter, 8)])
    expect(ids(next)).toEqual([kiwi.id])
  })
})

describe('the order of the session list', () => {
  const names = (groups: FleetGroup[]) => groups.map((group) => [group.name, ...group.sessions.map((each) => each.title)])
  const fleet = resynced(
    EMPTY_FLEET,
    read([
      session('zebra'),
      session('old', { liveness_name: 'archived' }),
      session('apple'),
      session('kiwi', { repo_path: '/work/blog', program: 'codex', idle_reason: 'prompt-not-delivered' }),
      session('mango', { repo_path: '/elsewhere/blog', remote_host: '10.0.0.2' }),
    ]),
  )
  const marked = applyFrame(fleet, attention(session('zebra'), 'settled'))

  it('groups by project, projects by name (then path), live sessions by title and archived ones last', () => {
    expect(names(fleetGroups(fleet, { filter: '', attentionFirst: false }))).toEqual([
      ['blog', 'mango'],
      ['blog', 'kiwi'],
      ['shop', 'apple', 'zebra', 'old'],
    ])
    expect(fleetGroups(fleet, { filter: '', attentionFirst: false }).map((group) => group.repoPath)).toEqual(['/elsewhere/blog', '/work/blog', '/src/shop'])
  })

  it('puts sessions that need their user in a group of their own first on request; otherwise they stay in their project', () => {
    expect(names(fleetGroups(marked, { filter: '', attentionFirst: true }))).toEqual([
      ['needs you', 'zebra'],
      ['blog', 'mango'],
      ['blog', 'kiwi'],
      ['shop', 'apple', 'old'],
    ])
    expect(fleetGroups(marked, { filter: '', attentionFirst: true })[0]?.repoPath).toBeUndefined()
    expect(names(fleetGroups(marked, { filter: '', attentionFirst: false }))).toEqual(names(fleetGroups(fleet, { filter: '', attentionFirst: false })))
  })

  it('filters on every word, any case, in title, project, branch, program, state, idle reason or host', () => {
    const titles = (filter: string) => fleetGroups(fleet, { filter, attentionFirst: false }).flatMap((group) => group.sessions.map((each) => each.title))
    expect(titles('CODEX')).toEqual(['kiwi'])
    expect(titles('SHOP archived')).toEqual(['old'])
    expect(titles('me/apple')).toEqual(['apple'])
    expect(titles('not delivered')).toEqual(['kiwi'])
    expect(titles('10.0.0.2')).toEqual(['mango'])
    expect(titles('nothing-like-this')).toEqual([])
  })
})

describe('following the event feed', () => {
  const otter = session('otter')
  const hello = (seq: number, boot = 'boot') => ({ type: 'hello', data: { boot_id: boot, seq } }) as const
  const created = (target: FleetSession, seq: number): EventFrame => ({ type: 'session.created', seq, data: target })

  /** A follower whose reads answer when the test says. */
  function follower() {
    const reads: Array<{ answer(read: FleetRead): void; fail(error: Error): void }> = []
    const changes: FleetChange[] = []
    const failures: unknown[] = []
    const feed = new FleetFollower({
      read: () => new Promise((answer, fail) => reads.push({ answer, fail })),
      changed: (_fleet, change) => changes.push(change),
      failed: (error) => failures.push(error),
    })
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
    return { feed, reads, changes, failures, settle }
  }

  it('reads on hello, shows events at once, and applies those that came during the read again on top of it', async () => {
    const { feed, reads, changes, settle } = follower()
    feed.take(hello(4))
    expect(reads).toHaveLength(1)
    const kiwi = session('kiwi')
    feed.take(created(kiwi, 5))
    expect(ids(feed.fleet)).toEqual([kiwi.id])
    reads[0]?.answer(read([otter]))
    await settle()
    expect(ids(feed.fleet)).toEqual([kiwi.id, otter.id])
    expect(changes).toEqual(['event', 'read'])
    feed.take(attention(otter, 'settled', 6))
    feed.markSeen(otter.id)
    expect([changes.slice(2), feed.fleet.attention.size]).toEqual([['event', 'seen'], 0])
    expect(reads).toHaveLength(1)
  })

  it('reads again after a gap in seq, after each later hello, and on projects.changed, but not on other events', async () => {
    const { feed, reads, settle } = follower()
    feed.take(hello(0))
    reads[0]?.answer(read([]))
    await settle()
    feed.take(created(otter, 1))
    feed.take({ type: 'task.removed', seq: 2, data: { id: 't' } })
    feed.take({ type: 'config.changed', seq: 3, data: { key: 'k' } })
    expect(reads).toHaveLength(1)
    feed.take(created(session('kiwi'), 5))
    expect(reads).toHaveLength(2)
    feed.take({ type: 'projects.changed', seq: 6 })
    expect(reads).toHaveLength(3)
    feed.take(hello(0, 'next-boot'))
    expect(reads).toHaveLength(4)
    feed.take(created(session('lime'), 1))
    expect(reads).toHaveLength(4)
  })

  it('drops a read overtaken by a newer one, and reports a failed read', async () => {
    const { feed, reads, failures, settle } = follower()
    feed.take(hello(0))
    feed.take(hello(0, 'restarted'))
    reads[1]?.answer(read([otter], { bootId: 'restarted' }))
    reads[0]?.answer(read([session('stale')]))
    await settle()
    expect([ids(feed.fleet), feed.fleet.bootId]).toEqual([[otter.id], 'restarted'])
    const again = feed.resync()
    reads[2]?.fail(new Error('daemon away'))
    await again
    expect(failures).toEqual([new Error('daemon away')])
    expect(ids(feed.fleet)).toEqual([otter.id])
  })
})
