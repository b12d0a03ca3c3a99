import { existsSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempHomes, type TestDaemon, branches, git, makeRepo, openSessionDaemon, session, startSessionDaemon, tmuxSessions, worktrees } from '@svc/test-kit'

const homes = tempHomes()
let daemon: TestDaemon
let repo: string
let other: string

beforeAll(async () => {
  const opened = await openSessionDaemon(homes)
  ;({ repo, daemon } = opened)
  other = await makeRepo(opened.dir, 'other')
})
afterAll(homes.release)

const create = (body: Record<string, unknown>) => daemon.post('/v1/CreateSession', body)

function unchanged() {
  return { tmux: tmuxSessions(daemon.home), worktrees: worktrees(repo), branches: branches(repo) }
}

describe('titles', () => {
  it('refuses a taken or unusable title and changes nothing', async () => {
    expect((await create({ repo_path: repo, title: 'taken' })).status).toBe(200)
    const before = unchanged()
    for (const [title, message] of [
      ['taken', 'a session titled "taken" already exists in this repository'],
      ['has space', 'title "has space" is not usable'],
      ['-dash', 'title "-dash" is not usable'],
      ['a.b', 'title "a.b" is not usable'],
    ]) {
      const reply = await create({ repo_path: repo, title })
      expect(reply.status).toBe(500)
      expect(reply.json.error.message).toContain(message)
    }
    expect(unchanged()).toEqual(before)
  })

  it('numbers a title_base and suggests a name when neither is given', async () => {
    const first = (await create({ repo_path: repo, title_base: 'nightly report!' })).json.data.instance
    const second = (await create({ repo_path: repo, title_base: 'nightly report!' })).json.data.instance
    expect([first.title, second.title]).toEqual(['nightly-report', 'nightly-report-2'])
    const suggested = (await create({ repo_path: repo })).json.data.instance
    expect(suggested.title).toMatch(/^[a-z]+-[a-z]+(-\d+)?$/)
    const { name } = await daemon.client.call('SuggestSessionName')
    const titles = (await daemon.client.call('Snapshot', {})).instances.map((s) => s.title)
    expect(name).toMatch(/^[a-z]+-[a-z]+(-\d+)?$/)
    expect(titles).not.toContain(name)
  })

  it('allows the same title in another repository, and then needs repo_id to pick one', async () => {
    await create({ repo_path: other, title: 'taken' })
    const ambiguous = await daemon.post('/v1/SendPrompt', { title: 'taken', prompt: 'hi' })
    expect(ambiguous.status).toBe(500)
    expect(ambiguous.json.error.message).toContain('several sessions are titled "taken"; pass repo_id')
    const otherId = (await daemon.client.call('Snapshot', {})).instances.find((s) => s.repo_path === other)?.repo_id
    expect((await daemon.post('/v1/SendPrompt', { title: 'taken', repo_id: otherId, prompt: 'hi' })).status).toBe(200)
  })

  it('gives exactly one of two concurrent creates the same title', async () => {
    const replies = await Promise.all([create({ repo_path: repo, title: 'race' }), create({ repo_path: repo, title: 'race' })])
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 500])
  })
})

describe('where and what runs', () => {
  it('runs in place in the repository itself, on its current branch', async () => {
    const before = { worktrees: worktrees(repo), branches: branches(repo) }
    const { instance } = (await create({ repo_path: repo, title: 'in-place', in_place: true })).json.data
    expect(instance).toMatchObject({ in_place: true, path: repo, branch: 'main' })
    expect({ worktrees: worktrees(repo), branches: branches(repo) }).toEqual(before)
    await daemon.client.call('KillSession', { title: 'in-place', repo_id: instance.repo_id })
    expect({ worktrees: worktrees(repo), branches: branches(repo) }).toEqual(before)
    expect(existsSync(repo)).toBe(true)
  })

  it('resolves the repository root from a subdirectory', async () => {
    await mkdir(join(repo, 'src', 'deep'), { recursive: true })
    const { instance } = (await create({ repo_path: join(repo, 'src', 'deep'), title: 'from-subdir' })).json.data
    expect(instance.repo_path).toBe(repo)
    expect(instance.path).toBe(`${repo}-from-subdir`)
  })

  it('runs any command line as the program', async () => {
    const { instance } = (await create({ repo_path: repo, title: 'plain', program: 'sleep 600' })).json.data
    expect(instance.program).toBe('sleep 600')
    expect(tmuxSessions(daemon.home)).toContain(instance.tabs[0].tmux_name)
  })

  it('refuses unavailable backends, unknown accounts and non-repositories, changing nothing', async () => {
    const before = unchanged()
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ repo_path: repo, backend: 'hook' }, 'backend "hook" is not available'],
      [{ repo_path: repo, backend: 'cloud' }, 'available: local'],
      [{ repo_path: repo, force_remote: true }, 'backend "hook" is not available'],
      [{ repo_path: repo, account: 'work' }, 'unknown claude account "work"'],
      [{ repo_path: repo, account: 'work', program: 'aider' }, 'program "aider" takes no account; accounts are for claude, codex'],
      [{ repo_path: '/tmp' }, '/tmp is not inside a git checkout'],
      [{ repo_path: join(repo, 'missing') }, 'is not inside a git checkout'],
      [{}, 'repo_path is required'],
    ]
    for (const [body, message] of cases) {
      const reply = await create(body)
      expect(reply.status, JSON.stringify(body)).toBe(500)
      expect(reply.json.error.message).toContain(message)
    }
    expect(unchanged()).toEqual(before)
    // An explicit backend wins over force_remote.
    expect((await create({ repo_path: repo, title: 'explicit', backend: 'local', force_remote: true })).status).toBe(200)
  })

  it('lists programs and backends', async () => {
    const programs = await daemon.client.call('ListPrograms', { repo_path: repo })
    expect(programs.default).toBe('claude')
    expect(programs.programs.map((p) => p.name)).toEqual(['claude', 'codex', 'aider', 'gemini', 'amp', 'opencode', 'devin'])
    expect(programs.programs.find((p) => p.name === 'claude')?.available).toBe(true)
    expect(programs.programs.find((p) => p.name === 'devin')?.available).toBe(false)
    // Profiles follow the command line that runs: claude is the fake agent here, aider has none.
    expect(programs.programs.map((p) => p.profile)).toEqual(['', 'codex', '', 'gemini', '', 'opencode', ''])
    const backends = await daemon.client.call('ListBackends', { repo_path: repo })
    expect(backends).toEqual({
      backends: [
        { name: 'local', status: 'available', label: expect.any(String) },
        { name: 'hook', status: 'unavailable', reason: expect.stringContaining('sets neither remote_hooks.provision_cmd nor remote_hooks.launch_cmd'), label: expect.any(String) },
        { name: 'docker', status: 'unavailable', reason: expect.stringContaining('docker.image is not set'), label: expect.any(String) },
        { name: 'ssh', status: 'unavailable', reason: expect.stringContaining('no ssh_hosts are set'), label: expect.any(String), hosts: [] },
      ],
      default: 'local',
      default_status: 'available',
    })
  })
})

describe('worktrees and branches', () => {
  it('starts a new branch from HEAD, and refuses a repository with no commit yet, changing nothing', async () => {
    const head = git(repo, 'rev-parse', 'HEAD').trim()
    const { instance } = (await create({ repo_path: repo, title: 'from-head' })).json.data
    expect(instance.worktree.base_sha).toBe(head)
    expect(git(instance.path, 'rev-parse', 'HEAD').trim()).toBe(head)

    const empty = join(other, '..', 'empty')
    await mkdir(empty)
    git(empty, 'init', '-q', '-b', 'main')
    const before = { tmux: tmuxSessions(daemon.home), worktrees: worktrees(empty), branches: branches(empty) }
    const reply = await create({ repo_path: empty, title: 'nothing' })
    expect(reply.json.error.message).toContain('has no commit yet: commit something before starting a session in a worktree')
    expect({ tmux: tmuxSessions(daemon.home), worktrees: worktrees(empty), branches: branches(empty) }).toEqual(before)
  })

  it('numbers the worktree path when <repo>-<title> is already a directory', async () => {
    await mkdir(`${repo}-occupied`)
    const { instance } = (await create({ repo_path: repo, title: 'occupied' })).json.data
    expect(instance.path).toBe(`${repo}-occupied-2`)
    expect(worktrees(repo)).toContain(`${repo}-occupied-2`)
  })

  it('checks out a branch that already existed, from its own commit, and keeps it on KillSession', async () => {
    git(repo, 'branch', 'agent/preexisting')
    const branchTip = git(repo, 'rev-parse', 'agent/preexisting').trim()
    git(repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'main moves on')
    const { instance } = (await create({ repo_path: repo, title: 'preexisting' })).json.data
    expect(instance.branch).toBe('agent/preexisting')
    expect(git(instance.path, 'rev-parse', 'HEAD').trim()).toBe(branchTip)
    const stored = JSON.parse(await readFile(join(daemon.home, 'sessions', `${instance.id}.json`), 'utf8'))
    expect(stored).toMatchObject({ branch_created: false, base_sha: branchTip })
    await daemon.client.call('KillSession', { title: 'preexisting' })
    expect(worktrees(repo)).not.toContain(instance.path)
    expect(branches(repo)).toContain('agent/preexisting')
  })

  it('prefixes branches with the lowercase user name when branch_prefix is not configured', async () => {
    const dir = await homes.make()
    const fresh = await makeRepo(dir)
    const unset = await startSessionDaemon({ home: join(dir, 'svc'), settings: { branch_prefix: undefined } })
    const { instance } = await unset.client.call('CreateSession', { repo_path: fresh, title: 'prefixed' })
    expect(instance.branch).toBe(`${userInfo().username.toLowerCase()}/prefixed`)
    expect(branches(fresh)).toContain(instance.branch)
  })
})

describe('Snapshot over real sessions', () => {
  it('orders by repo id then title and applies every filter', async () => {
    const all = (await daemon.client.call('Snapshot', {})).instances
    const order = all.map((s) => `${s.repo_id}/${s.title}`)
    expect(order).toEqual([...order].sort())
    const repoId = (await session(daemon, 'race')).repo_id
    expect((await daemon.client.call('Snapshot', { repo_id: repoId })).instances.every((s) => s.repo_id === repoId)).toBe(true)
    await daemon.client.call('ArchiveSession', { title: 'race' })
    const live = (await daemon.client.call('Snapshot', { live: true })).instances
    expect(live.map((s) => s.title)).not.toContain('race')
    expect(live).toHaveLength(all.length - 1)
    expect((await daemon.client.call('Snapshot', { statuses: ['archived'] })).instances.map((s) => s.title)).toEqual(['race'])
    const newest = all.map((s) => s.created_at).sort().at(-2) as string
    expect((await daemon.client.call('Snapshot', { created_after: newest })).instances).toHaveLength(1)
    expect((await daemon.client.call('Snapshot', { limit: 2 })).instances.map((s) => s.id)).toEqual(all.slice(0, 2).map((s) => s.id))
    for (const instance of all) {
      expect(instance.tab_kinds.map((entry) => entry.kind)).toEqual(['agent', 'shell', 'process', 'web', 'editor'])
      expect(instance.boot_id).toBe((await daemon.client.call('Health')).boot_id)
    }
  })
})
