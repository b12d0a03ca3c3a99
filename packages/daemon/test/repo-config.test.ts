import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AGENT,
  branches,
  envDump,
  git,
  makeRepo,
  openSessionDaemon,
  session,
  tempHomes,
  tmuxSessions,
  worktrees,
  type TestDaemon,
} from '@svc/test-kit'

const homes = tempHomes()
let dir: string
let daemon: TestDaemon

beforeAll(async () => {
  ;({ dir, daemon } = await openSessionDaemon(homes))
})
afterAll(homes.release)

const configFile = (repo: string) => join(repo, '.svc', 'config.json')

async function writeRepoConfig(repo: string, content: unknown): Promise<string> {
  await mkdir(join(repo, '.svc'), { recursive: true })
  const text = typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`
  await writeFile(configFile(repo), text)
  return text
}

const post = (route: string, body: Record<string, unknown>) => daemon.post(`/v1/${route}`, body)

async function entriesFor(repo?: string) {
  const { entries, ...rest } = await daemon.client.call('GetConfig', repo ? { repo_path: repo } : {})
  return { ...rest, byKey: Object.fromEntries(entries.map((entry) => [entry.key, entry])) }
}

/** What a refused create must leave as it was: tmux, worktrees, branches, sessions and projects. */
async function footprint(repo: string) {
  return {
    tmux: tmuxSessions(daemon.home),
    worktrees: worktrees(repo),
    branches: branches(repo),
    sessions: (await daemon.client.call('Snapshot', {})).instances.map((instance) => instance.id).sort(),
    projects: (await daemon.client.call('ListProjects')).projects.map((project) => project.root),
  }
}

async function projectOf(repo: string) {
  await daemon.client.call('RegisterProject', { path: repo })
  return (await daemon.client.call('ListProjects')).projects.find((project) => project.root === repo)
}

describe('source scoping', () => {
  it.each([
    [{ session_env_passthrough: ['AWS_SECRET_ACCESS_KEY'] }, 'session_env_passthrough', 'global setting, cannot be set per repository'],
    [{ network: { listen_addr: '0.0.0.0:80' } }, 'network.listen_addr', 'global setting, cannot be set per repository'],
    [{ require_token: false }, 'require_token', 'global setting, cannot be set per repository'],
    [{ mystery: 1 }, 'mystery', 'unknown key; a repository may set only default_program'],
    [{ auto_yes: true }, 'auto_yes', 'program_overrides'],
    [{ backend: 'cloud' }, 'backend', 'expected one of local, hook, docker, ssh'],
    [{ program_overrides: { claude: 7 } }, 'program_overrides', 'expected a string for "claude"'],
  ])('refuses %j by file and key, in GetConfig and CreateSession, creating nothing', async (content, key, reason) => {
    const repo = await makeRepo(dir, `scoped-${key.replace(/\W/g, '-')}`)
    await writeRepoConfig(repo, content)
    const before = await footprint(repo)
    for (const reply of [
      await post('GetConfig', { repo_path: repo }),
      await post('CreateSession', { repo_path: join(repo), title: 'nope' }),
      await post('ListPrograms', { repo_path: repo }),
    ]) {
      expect(reply.status).toBe(500)
      expect(reply.json.error.message).toContain(`${configFile(repo)}: key "${key}": `)
      expect(reply.json.error.message).toContain(reason)
    }
    expect(await footprint(repo)).toEqual(before)
    expect((await projectOf(repo))?.config_trusted).toBe(false)
  })
})

describe('the value in force for a repository', () => {
  it('is the repository file over config.json over the default, with its source, from any path in any worktree', async () => {
    const repo = await makeRepo(dir, 'layers')
    await daemon.client.call('SetConfigValue', { key: 'default_program', value: 'codex' })
    await writeRepoConfig(repo, { default_program: 'aider', backend: 'local' })
    await mkdir(join(repo, 'src'))
    git(repo, 'worktree', 'add', '-q', '-b', 'side', join(dir, 'layers-side'))

    for (const path of [repo, join(repo, 'src'), join(dir, 'layers-side')]) {
      const { byKey, repo_file, repo_trusted } = await entriesFor(path)
      expect({ repo_file, repo_trusted }).toEqual({ repo_file: configFile(repo), repo_trusted: true })
      expect(byKey.default_program).toMatchObject({ value: 'aider', source: 'repo', scope: 'both' })
      expect(byKey.backend).toMatchObject({ value: 'local', source: 'repo', scope: 'repo' })
      // Set in the test daemon's config.json, not in the repository's.
      expect(byKey.program_overrides).toMatchObject({ value: JSON.stringify({ claude: AGENT }), source: 'global' })
      expect(byKey.log_max_backups).toMatchObject({ value: '3', source: 'default', scope: 'global' })
    }
    expect((await daemon.client.call('ListPrograms', { repo_path: join(dir, 'layers-side') })).default).toBe('aider')

    // Without repo_path: config.json's values; repository keys at their default, marked by scope.
    const global = await entriesFor()
    expect(global.repo_file).toBeUndefined()
    expect(global.byKey.default_program).toMatchObject({ value: 'codex', source: 'global' })
    expect(global.byKey.backend).toMatchObject({ value: 'local', default: 'local', source: 'default', scope: 'repo', enum: ['local', 'hook', 'docker', 'ssh'] })
    expect((await daemon.client.call('ListPrograms', {})).default).toBe('codex')

    await daemon.client.call('UnsetConfigValue', { key: 'default_program', repo_path: repo })
    expect((await entriesFor(repo)).byKey.default_program).toMatchObject({ value: 'codex', source: 'global' })
    await daemon.client.call('UnsetConfigValue', { key: 'default_program' })
    expect((await entriesFor(repo)).byKey.default_program).toMatchObject({ value: 'claude', source: 'default' })
  })

  it('takes the default backend from the repository', async () => {
    const repo = await makeRepo(dir, 'remote-minded')
    await writeRepoConfig(repo, { backend: 'hook' })
    const listed = await daemon.client.call('ListBackends', { repo_path: repo })
    expect(listed).toMatchObject({ default: 'hook', default_status: 'unavailable' })
    expect(listed.backends.find((backend) => backend.name === 'hook')?.reason).not.toContain('trust')
    expect((await daemon.client.call('ListBackends', {})).default).toBe('local')
    // A create naming no backend gets the repository's, which this version cannot run.
    const before = await footprint(repo)
    const reply = await post('CreateSession', { repo_path: repo, title: 'far' })
    expect(reply.json.error.message).toContain('backend "hook" is not available')
    expect(await footprint(repo)).toEqual(before)
    expect((await post('CreateSession', { repo_path: repo, title: 'near', backend: 'local' })).status).toBe(200)
  })
})

describe('SetConfigValue and UnsetConfigValue with repo_path', () => {
  it('writes the main root\'s .svc/config.json (created), with dotted map leaves, and says it needs trust', async () => {
    const repo = await makeRepo(dir, 'edited')
    await mkdir(join(repo, 'deep'))
    const set = await daemon.client.call('SetConfigValue', { key: 'program_overrides.claude', value: 'claude --model opus', repo_path: join(repo, 'deep') })
    expect(set).toMatchObject({ ok: true, key: 'program_overrides', value: '{"claude":"claude --model opus"}', applies: 'now', file: configFile(repo) })
    expect(set.warnings?.join('\n')).toContain(`svc projects trust ${repo}`)
    await daemon.client.call('SetConfigValue', { key: 'remote_hooks.delete_cmd', value: './hooks/delete', repo_path: repo })
    await daemon.client.call('SetConfigValue', { key: 'backend', value: 'local', repo_path: repo })
    expect(JSON.parse(await readFile(configFile(repo), 'utf8'))).toEqual({
      program_overrides: { claude: 'claude --model opus' },
      remote_hooks: { delete_cmd: './hooks/delete' },
      backend: 'local',
    })
    // Writing through svc never trusts the file.
    expect((await projectOf(repo))?.config_trusted).toBe(false)
    await daemon.client.call('UnsetConfigValue', { key: 'program_overrides.claude', repo_path: repo })
    await daemon.client.call('UnsetConfigValue', { key: 'remote_hooks.delete_cmd', repo_path: repo })
    const unset = await daemon.client.call('UnsetConfigValue', { key: 'backend', repo_path: repo })
    expect(unset.warnings).toBeUndefined()
    expect(JSON.parse(await readFile(configFile(repo), 'utf8'))).toEqual({})
    expect((await projectOf(repo))?.config_trusted).toBe(true)
  })

  it.each([
    [{ key: 'network.listen_addr', value: ':0', repo: true }, 'network.listen_addr: global setting, cannot be set per repository'],
    [{ key: 'session_env_passthrough', value: 'HOME', repo: true }, 'global setting, cannot be set per repository'],
    [{ key: 'backend', value: 'cloud', repo: true }, 'backend: expected one of local, hook, docker, ssh, got "cloud"'],
    [{ key: 'backend', value: 'hook', repo: false }, 'backend is a repository setting: use --repo PATH'],
    [{ key: 'remote_hooks.launch_cmd', value: './launch', repo: false }, 'remote_hooks.launch_cmd is a repository setting: use --repo PATH'],
  ])('refuses %j, changing no file', async ({ key, value, repo: inRepo }, message) => {
    const repo = await makeRepo(dir, `refused-${key.replace(/\W/g, '-')}-${inRepo}`)
    const global = await readFile(daemon.paths.config, 'utf8')
    const reply = await post('SetConfigValue', { key, value, ...(inRepo ? { repo_path: repo } : {}) })
    expect(reply.status).toBe(500)
    expect(reply.json.error.message).toContain(message)
    expect(existsSync(join(repo, '.svc'))).toBe(false)
    expect(await readFile(daemon.paths.config, 'utf8')).toBe(global)
    if (!inRepo) expect((await post('UnsetConfigValue', { key })).json.error.message).toContain(message)
  })

  it('warns about, and ignores, a repository key in config.json', async () => {
    const original = await readFile(daemon.paths.config, 'utf8')
    await writeFile(daemon.paths.config, JSON.stringify({ ...JSON.parse(original), backend: 'hook' }))
    const global = await entriesFor()
    expect(global.byKey.backend).toMatchObject({ value: 'local', source: 'default' })
    expect(global.warnings?.join('\n')).toContain('backend is ignored in')
    await writeFile(daemon.paths.config, original)
  })
})

describe('trust', () => {
  it('runs a repository\'s default_program command only once trusted, and refuses it again once changed', async () => {
    const repo = await makeRepo(dir, 'trusting')
    const dump = join(dir, 'trusting-env.json')
    const command = `${AGENT} --env-dump ${dump}`
    const text = await writeRepoConfig(repo, { default_program: command })

    const project = await projectOf(repo)
    expect(project?.config_trusted).toBe(false)
    const hook = (await daemon.client.call('ListBackends', { repo_path: repo })).backends.find((backend) => backend.name === 'hook')
    expect(hook?.reason).toContain(`svc projects trust ${repo}`)

    const before = await footprint(repo)
    for (const body of [{ repo_path: repo, title: 'untrusted' }, { repo_path: repo, title: 'explicit', program: 'claude' }]) {
      const reply = await post('CreateSession', body)
      expect(reply.status).toBe(500)
      const { message } = reply.json.error
      expect(message).toContain(`the repository config ${configFile(repo)} is not trusted`)
      expect(message).toContain(JSON.stringify(command))
      expect(message).toContain(`svc projects trust ${repo}`)
    }
    const delivered = await post('DeliverPrompt', { repo_path: repo, title: 'delivered', prompt: 'hello' })
    expect(delivered.status).toBe(500)
    expect(delivered.json.error.message).toContain('is not trusted')
    expect(await footprint(repo)).toEqual(before)
    expect(existsSync(dump)).toBe(false)

    const trusted = await daemon.client.call('TrustProject', { path: join(repo, '.svc') })
    expect(trusted).toEqual({ ok: true, sha256: createHash('sha256').update(text).digest('hex') })
    const record = JSON.parse(await readFile(join(daemon.home, 'trusted-repo-configs.json'), 'utf8'))
    expect(record.repositories[repo]).toMatchObject({ sha256: trusted.sha256 })
    expect((await projectOf(repo))?.config_trusted).toBe(true)
    expect((await entriesFor(repo)).repo_trusted).toBe(true)

    const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'trusted' })
    expect(instance.program).toBe(command)
    expect((await envDump(dump)).SVC_SESSION_TITLE).toBe('trusted')

    await writeRepoConfig(repo, { default_program: command, backend: 'local' })
    expect((await projectOf(repo))?.config_trusted).toBe(false)
    const changed = await post('CreateSession', { repo_path: repo, title: 'changed' })
    expect(changed.status).toBe(500)
    expect(changed.json.error.message).toContain('is not trusted (it changed since it was trusted)')

    // Nothing else spawns the repository's agents either, and the running one is left alone.
    const agentTmux = instance.tabs[0]?.tmux_name as string
    const handoff = await post('HandoffSession', { id: instance.id, to: 'codex' })
    expect(handoff.json.error.message).toContain('is not trusted')
    expect(tmuxSessions(daemon.home)).toContain(agentTmux)
    expect((await session(daemon, 'trusted')).program).toBe(command)
    const archived = await daemon.client.call('ArchiveSession', { id: instance.id })
    const restore = await post('RestoreArchived', { id: instance.id })
    expect(restore.json.error.message).toContain('is not trusted')
    expect(await session(daemon, 'trusted')).toMatchObject({ liveness_name: 'archived', path: instance.path })
    expect(existsSync(archived.archived_path)).toBe(true)
  })

  it('applies a trusted repository\'s program_overrides to the program a create picks', async () => {
    const repo = await makeRepo(dir, 'overridden')
    const dump = join(dir, 'overridden-env.json')
    await writeRepoConfig(repo, { program_overrides: { claude: `${AGENT} --env-dump ${dump}` } })
    const refused = await post('CreateSession', { repo_path: repo, title: 'first' })
    expect(refused.json.error.message).toContain(`--env-dump ${dump}`)
    await daemon.client.call('TrustProject', { path: repo })
    const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'second' })
    expect(instance.program).toBe('claude')
    expect((await envDump(dump)).SVC_SESSION_TITLE).toBe('second')
  })

  it('needs no trust for a config naming no commands', async () => {
    const repo = await makeRepo(dir, 'harmless')
    await writeRepoConfig(repo, { backend: 'local', default_program: 'claude' })
    expect((await projectOf(repo))?.config_trusted).toBe(true)
    expect((await post('CreateSession', { repo_path: repo, title: 'plain' })).status).toBe(200)
  })

  it('refuses to trust what is not there or cannot be used, recording nothing', async () => {
    const bare = await makeRepo(dir, 'bare-config')
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ path: bare }, `${configFile(bare)} does not exist: the repository has no config to trust`],
      [{ path: join(dir, 'nowhere') }, 'is not inside a git checkout'],
      [{}, 'path is required'],
    ]
    const broken = await makeRepo(dir, 'broken-config')
    await writeRepoConfig(broken, { notify_command: 'curl evil' })
    cases.push([{ path: broken }, `key "notify_command": global setting`])
    const trustFile = join(daemon.home, 'trusted-repo-configs.json')
    const before = existsSync(trustFile) ? await readFile(trustFile, 'utf8') : undefined
    for (const [body, message] of cases) {
      const reply = await post('TrustProject', body)
      expect(reply.status).toBe(500)
      expect(reply.json.error.message).toContain(message)
    }
    expect(existsSync(trustFile) ? await readFile(trustFile, 'utf8') : undefined).toBe(before)
  })
})
