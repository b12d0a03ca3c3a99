import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { tempHomes, type TestDaemon, branches, openSessionDaemon, session, tmuxSessions, worktrees } from '@svc/test-kit'

// Concurrent operations on one session run one after the other, each seeing what the
// one before it left.

const homes = tempHomes()
let daemon: TestDaemon
let repo: string

beforeAll(async () => ({ repo, daemon } = await openSessionDaemon(homes)))
afterAll(homes.release)

const call = (route: string, body: Record<string, unknown>) => daemon.post(`/v1/${route}`, body)

it('archives once when two ArchiveSession calls race, and refuses the second', async () => {
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'twice' })
  const replies = await Promise.all([call('ArchiveSession', { title: 'twice' }), call('ArchiveSession', { title: 'twice' })])
  const archivedPath = join(daemon.home, 'archived', instance.repo_id, 'twice')
  expect(replies.map((reply) => reply.status).sort()).toEqual([200, 500])
  expect(replies.find((reply) => reply.status === 200)?.json.data).toEqual({ ok: true, archived_path: archivedPath })
  expect(replies.find((reply) => reply.status === 500)?.json.error.message).toBe('session "twice" is already archived')
  expect(await session(daemon, 'twice')).toMatchObject({ liveness_name: 'archived', archived_path: archivedPath })
  expect(worktrees(repo)).toContain(archivedPath)
  expect(existsSync(instance.path)).toBe(false)
})

it('creates the session once when two DeliverPrompt calls for a missing title race', async () => {
  const deliver = (prompt: string) => call('DeliverPrompt', { title: 'courier', repo_path: repo, prompt })
  const replies = await Promise.all([deliver('first errand for you'), deliver('second errand for you')])
  expect(replies.map((reply) => reply.status)).toEqual([200, 200])
  expect(replies.map((reply) => reply.json.data.status).sort()).toEqual(['sent', 'started'])
  const couriers = (await daemon.client.call('Snapshot', {})).instances.filter((instance) => instance.title === 'courier')
  expect(couriers).toHaveLength(1)
})

it('never leaves a half state when ArchiveSession and KillSession race, in either order', async () => {
  for (const [title, order] of [['archive-first', ['ArchiveSession', 'KillSession']], ['kill-first', ['KillSession', 'ArchiveSession']]] as const) {
    const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title })
    const replies = new Map(await Promise.all(order.map(async (route) => [route, await call(route, { title })] as const)))
    // The kill always completes; the archive either ran before it or found the session gone.
    expect(replies.get('KillSession')?.json.data).toEqual({ ok: true })
    const archive = replies.get('ArchiveSession')
    if (archive?.status !== 200) expect(archive?.json.error.message).toMatch(/was removed|no session/)
    expect((await daemon.client.call('Snapshot', {})).instances.map((s) => s.title)).not.toContain(title)
    expect(worktrees(repo).filter((path) => path.endsWith(title))).toEqual([])
    expect(existsSync(instance.path)).toBe(false)
    expect(existsSync(join(daemon.home, 'archived', instance.repo_id, title))).toBe(false)
    expect(existsSync(join(daemon.home, 'sessions', `${instance.id}.json`))).toBe(false)
    expect(branches(repo)).not.toContain(`agent/${title}`)
    expect(tmuxSessions(daemon.home).filter((name) => name.includes(title))).toEqual([])
  }
})
