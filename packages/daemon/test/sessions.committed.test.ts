import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { tempHomes, type Reply, type TestDaemon, git, openSessionDaemon, session, tmuxSessions, worktrees } from '@svc/test-kit'

// A session operation that fails after the record was saved answers mutation_committed
// (never daemon_rejected), so no client retries it.

const homes = tempHomes()
let daemon: TestDaemon
let repo: string

beforeAll(async () => ({ repo, daemon } = await openSessionDaemon(homes)))
afterAll(homes.release)

function expectCommitted(reply: Reply, message: string) {
  expect(reply.status).toBe(500)
  expect(reply.json.error).toMatchObject({ code: 'mutation_committed', message: expect.stringContaining(message) })
  expect(reply.json.error).not.toHaveProperty('daemon_rejected')
}

/** A session whose worktree git refuses to remove or move: it is locked. */
async function lockedSession(title: string) {
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title })
  git(repo, 'worktree', 'lock', instance.path)
  return instance
}

async function expectSavedDead(id: string, title: string) {
  const dead = await session(daemon, title)
  expect(dead.liveness_name).toBe('dead')
  expect(JSON.parse(await readFile(join(daemon.home, 'sessions', `${id}.json`), 'utf8')).status).toBe(dead.status)
  expect(tmuxSessions(daemon.home).filter((name) => name.endsWith(`_${title}`))).toEqual([])
}

it('KillSession: tmux gone and the record saved dead, then removing the worktree fails', async () => {
  const instance = await lockedSession('stuck')
  expectCommitted(await daemon.post('/v1/KillSession', { title: 'stuck' }), 'session "stuck" was stopped and marked dead, but')
  await expectSavedDead(instance.id, 'stuck')
  expect(existsSync(instance.path)).toBe(true)

  // Once git lets go, a second kill finishes the job.
  git(repo, 'worktree', 'unlock', instance.path)
  expect(await daemon.client.call('KillSession', { title: 'stuck' })).toEqual({ ok: true })
  expect(worktrees(repo)).not.toContain(instance.path)
})

it('ArchiveSession: tmux gone and the record saved dead, then moving the worktree fails', async () => {
  const instance = await lockedSession('anchored')
  expectCommitted(await daemon.post('/v1/ArchiveSession', { title: 'anchored' }), 'session "anchored" was stopped and marked dead, but')
  await expectSavedDead(instance.id, 'anchored')
  expect(worktrees(repo)).toContain(instance.path)
  expect(existsSync(join(daemon.home, 'archived', instance.repo_id, 'anchored'))).toBe(false)
})

it('CreateSession: the session saved, then its prompt cannot be delivered; the tmux server survives', async () => {
  const bystander = (await daemon.client.call('CreateSession', { repo_path: repo, title: 'bystander' })).instance
  // Dies at once, so its pane shows only tmux's dead-pane notice when the prompt is pasted.
  const reply = await daemon.post('/v1/CreateSession', { repo_path: repo, title: 'stillborn', program: 'exit 3', prompt: 'hello' })
  expectCommitted(reply, 'session "stillborn" was created, but')
  expect(reply.json.error.message).toContain('is dead')
  expect((await session(daemon, 'stillborn')).title).toBe('stillborn')
  expect(tmuxSessions(daemon.home)).toContain(bystander.tabs[0]?.tmux_name)
})
