import { existsSync } from 'node:fs'
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempHomes, type TestDaemon, branches, makeRepo, session, startSessionDaemon, tmuxSessions, worktrees } from '@svc/test-kit'

const homes = tempHomes()
let dir: string
let daemon: TestDaemon

beforeAll(async () => {
  dir = await homes.make()
  daemon = await startSessionDaemon({ home: join(dir, 'svc') })
})
afterAll(homes.release)

describe('RegisterProject and ListProjects', () => {
  it('resolves the git root, is idempotent, and persists', async () => {
    const repo = await makeRepo(dir, 'alpha')
    await mkdir(join(repo, 'lib'))
    const first = await daemon.client.call('RegisterProject', { path: join(repo, 'lib') })
    expect(first).toEqual({
      ok: true,
      project: { id: expect.stringMatching(/^[0-9a-f]{12}$/), root: repo, path_exists: true, config_trusted: true },
    })
    expect(await daemon.client.call('RegisterProject', { path: repo })).toEqual(first)
    expect((await daemon.client.call('ListProjects')).projects).toEqual([first.project])
    await daemon.stop()
    daemon = await startSessionDaemon({ home: daemon.home })
    expect((await daemon.client.call('ListProjects')).projects).toEqual([first.project])
  })

  it('expands ~ on the daemon host', async () => {
    const reply = await daemon.post('/v1/RegisterProject', { path: '~/definitely-not-a-repo-svc' })
    expect(reply.status).toBe(500)
    expect(reply.json.error.message).toContain(`${join(homedir(), 'definitely-not-a-repo-svc')} is not inside a git checkout`)
  })

  it('refuses what is not a git checkout, registering nothing', async () => {
    const plain = join(dir, 'plain')
    await mkdir(plain)
    const before = (await daemon.client.call('ListProjects')).projects
    for (const path of [plain, join(dir, 'missing'), '']) {
      expect((await daemon.post('/v1/RegisterProject', { path })).status).toBe(500)
    }
    expect((await daemon.client.call('ListProjects')).projects).toEqual(before)
  })

  it('reports a project whose checkout is gone', async () => {
    const repo = await makeRepo(dir, 'vanishing')
    await daemon.client.call('RegisterProject', { path: repo })
    await rename(repo, `${repo}-moved`)
    const project = (await daemon.client.call('ListProjects')).projects.find((p) => p.root === repo)
    expect(project?.path_exists).toBe(false)
    await daemon.client.call('DeleteProject', { repo_path: repo })
    expect((await daemon.client.call('ListProjects')).projects.map((p) => p.root)).not.toContain(repo)
  })
})

describe('DeleteProject', () => {
  it('archives live sessions, tears down in-place ones, drops the root-agents opt-in and leaves the repository alone', async () => {
    const repo = await makeRepo(dir, 'doomed')
    await daemon.client.call('CreateSession', { repo_path: repo, title: 'worker' })
    const repoId = (await session(daemon, 'worker')).repo_id
    // Opted in both by path and by repo id: both go.
    await daemon.client.call('SetConfigValue', { key: 'root_agents', value: JSON.stringify([repo, repoId, '/srv/elsewhere']) })
    await daemon.client.call('CreateSession', { repo_path: repo, title: 'shelved' })
    await daemon.client.call('ArchiveSession', { title: 'shelved' })
    await daemon.client.call('CreateSession', { repo_path: repo, title: 'rooted', in_place: true })

    expect(await daemon.client.call('DeleteProject', { repo_path: repo })).toEqual({ ok: true })
    const left = (await daemon.client.call('Snapshot', { repo_id: repoId })).instances
    expect(left.map((s) => [s.title, s.liveness_name])).toEqual([
      ['shelved', 'archived'],
      ['worker', 'archived'],
    ])
    expect(tmuxSessions(daemon.home).filter((name) => name.includes(repoId.slice(0, 8)))).toEqual([])
    expect(existsSync(join(repo, '.git'))).toBe(true)
    expect(worktrees(repo)).toHaveLength(3)
    expect(branches(repo)).toEqual(['agent/shelved', 'agent/worker', 'main'])
    const rootAgents = (await daemon.client.call('GetConfig')).entries.find((e) => e.key === 'root_agents')
    expect(JSON.parse(rootAgents?.value as string)).toEqual(['/srv/elsewhere'])
    expect((await daemon.client.call('ListProjects')).projects.map((p) => p.root)).not.toContain(repo)
    // Archived sessions stay restorable.
    expect((await daemon.client.call('RestoreArchived', { title: 'worker', repo_id: repoId })).worktree_path).toBe(`${repo}-worker`)
  })

  it('refuses unknown projects', async () => {
    expect((await daemon.post('/v1/DeleteProject', { repo_id: 'ffffffffffff' })).json.error.message).toContain('no project')
    expect((await daemon.post('/v1/DeleteProject', {})).json.error.message).toBe('repo_path or repo_id is required')
  })
})

describe('ListDirectory', () => {
  it('lists child directories with canonical paths, marking git checkouts', async () => {
    const base = join(dir, 'browse')
    await makeRepo(base, 'checkout')
    await mkdir(join(base, 'folder'))
    await mkdir(join(base, '.hidden'))
    await writeFile(join(base, 'file.txt'), '')
    await symlink(join(base, 'checkout'), join(base, 'link'))
    await symlink(base, join(dir, 'browse-link'))
    const listing = await daemon.client.call('ListDirectory', { path: join(dir, 'browse-link') })
    expect(listing).toEqual({
      path: base,
      parent: dir,
      home: homedir(),
      is_repo: false,
      entries: [
        { name: 'checkout', path: join(base, 'checkout'), is_repo: true },
        { name: 'folder', path: join(base, 'folder'), is_repo: false },
        { name: 'link', path: join(base, 'checkout'), is_repo: true },
      ],
      truncated: false,
    })
    expect((await daemon.client.call('ListDirectory', { path: join(base, 'checkout') })).is_repo).toBe(true)
    expect((await daemon.client.call('ListDirectory', {})).path).toBe(homedir())
  })

  it('makes an unreadable directory an error, never an empty list', async () => {
    for (const path of [join(dir, 'nowhere'), join(dir, 'browse', 'file.txt')]) {
      const reply = await daemon.post('/v1/ListDirectory', { path })
      expect(reply.status).toBe(500)
      expect(reply.json.error.message).toMatch(/^cannot list /)
    }
  })
})
