import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createClient } from '@svc/protocol'
import {
  AGENT,
  git,
  alive,
  hookCalls,
  placeLabel,
  record,
  recordEvents,
  remoteDirs,
  remoteOf,
  remotePid,
  runCli,
  session,
  useHookWorld,
  waitFor,
  waitForSession,
} from '@svc/test-kit'

// The home daemon drives real agent servers that the test launch_cmd starts, each behind
// a veth hop where the machine allows a network namespace.
const SECRET = 'do-not-cross-0451'
const world = useHookWorld({ env: { SVC_HOOK_TIMEOUT_MS: '10000', SVC_TEST_HOME_ONLY: SECRET } })

const create = (body: Record<string, unknown>) => world.daemon.post('/v1/CreateSession', { repo_path: world.repo, ...body })
const tokenFiles = () => (existsSync(join(world.daemon.home, 'remote-tokens')) ? readdirSync(join(world.daemon.home, 'remote-tokens')) : [])

/** Every file under the home daemon's home but the token files, as text. */
function homeFilesText(dir = world.daemon.home): string {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.name !== 'remote-tokens' && !entry.name.endsWith('.sock'))
    .map((entry) => (entry.isDirectory() ? homeFilesText(join(dir, entry.name)) : readFileSync(join(dir, entry.name), 'latin1')))
    .join('\n')
}

describe(`a hook session, its agent server ${placeLabel()}`, () => {
  it('lists hook as available for the trusted repository', async () => {
    const { backends } = await world.daemon.client.call('ListBackends', { repo_path: world.repo })
    expect(backends.find((entry) => entry.name === 'hook')).toMatchObject({ status: 'available' })
  })

  it('is created through launch_cmd, shows the remote row under its home id, takes prompts, previews, leases and tabs, and is killed with delete_cmd', async () => {
    const events = await recordEvents(world.daemon.client)
    const reply = await create({ title: 'Fix_Login', backend: 'hook', prompt: 'hello remote' })
    expect(reply.status, reply.text).toBe(200)
    const instance = reply.json.data.instance
    expect(instance).toMatchObject({ title: 'Fix_Login', backend: 'hook', program: 'claude', remote_host: world.place.address })

    // launch_cmd ran directly with the contract's arguments and the filtered environment.
    const [launch] = hookCalls(world.state)
    expect(launch?.argv.slice(-10)).toEqual(['--name', 'fixlogin', '--title', 'Fix_Login', '--repo', world.origin, '--branch', 'agent/Fix_Login', '--base', 'main'])
    expect(launch?.env).toContain('PATH')
    expect(launch?.env).not.toContain('SVC_TEST_HOME_ONLY')

    // On the remote: the session in place in the clone, running the command line the home resolved.
    const remote = remoteOf(world.state, 'fixlogin')
    const remoteClient = createClient({ url: remote.url, token: remote.token })
    const [remoteRow] = (await remoteClient.call('Snapshot', {})).instances
    expect(remoteRow).toMatchObject({ title: 'Fix_Login', in_place: true, program: AGENT, path: remote.workspace })
    expect(remoteRow?.id).not.toBe(instance.id)

    // The token: in a 0600 file of its own, nowhere else in the home (records, log).
    expect(tokenFiles()).toEqual([instance.id])
    expect(statSync(join(world.daemon.home, 'remote-tokens', instance.id)).mode & 0o777).toBe(0o600)
    expect(homeFilesText()).not.toContain(remote.token)

    // The row is the remote's, under the home id, and stays fresh.
    const ready = await waitForSession(world.daemon, 'Fix_Login', (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
    expect(ready).toMatchObject({ id: instance.id, remote_host: world.place.address, path: remote.workspace })
    expect(ready.tabs.map((tab) => tab.id)).toEqual(remoteRow?.tabs.map((tab) => tab.id))
    expect(ready.tab_kinds.filter((kind) => kind.allowed).map((kind) => kind.kind)).toEqual(['web'])
    expect(events.ofKind('session.updated').some((frame) => frame.data.id === instance.id)).toBe(true)

    // SendPrompt answers the remote's verdict, and the remote pane shows the prompt.
    const prompted = await world.daemon.client.call('SendPrompt', { id: instance.id, prompt: 'second prompt' })
    expect(prompted.status).toMatch(/^(delivered|delivery-unconfirmed)$/)
    const preview = await waitFor(async () => {
      const shown = await world.daemon.client.call('Preview', { id: instance.id })
      return shown.text.includes('second prompt') ? shown : undefined
    })
    expect(preview.text).toContain('hello remote')

    // The home's stream of the session is the remote pane's: typing and resizing reach it.
    const stream = await world.daemon.client.stream(instance.id)
    const seen = record(stream)
    await seen.shows('second prompt')
    stream.resize(30, 100)
    stream.input('typed through the home')
    await waitFor(async () => (await world.daemon.client.call('Preview', { id: instance.id })).text.includes('typed through the home'))
    await waitFor(async () => (await world.daemon.client.call('Preview', { id: instance.id })).cols === 100)
    stream.detach()
    await stream.closed

    // Leases reach the remote; tabs: only https web tabs.
    const lease = await world.daemon.client.call('PauseStatusPoll', { id: instance.id, holder: 'test' })
    expect(Date.parse(lease.expires_at)).toBeGreaterThan(Date.now())
    expect(await world.daemon.client.call('ResumeStatusPoll', { id: instance.id, holder: 'test' })).toEqual({ ok: true })
    for (const body of [{ kind: 'shell' }, { kind: 'web', url: 'http://example.com/' }, { command: 'top' }]) {
      const refused = await world.daemon.post('/v1/CreateTab', { id: instance.id, ...body })
      expect(refused.status).toBe(500)
      expect(refused.json.error.message).toContain('takes only https web tabs')
    }
    const tab = await world.daemon.client.call('CreateTab', { id: instance.id, kind: 'web', url: 'https://example.com/docs' })
    expect((await session(world.daemon, 'Fix_Login')).tabs.find((entry) => entry.id === tab.id)).toMatchObject({ url: 'https://example.com/docs' })

    // Handoff is not served for hook sessions: refused, nothing changed.
    const handoff = await world.daemon.post('/v1/HandoffSession', { id: instance.id, to: 'codex' })
    expect(handoff.json.error.message).toBe('handoff of hook sessions is not supported yet')

    const pid = remotePid(world.state, 'fixlogin')
    expect(await world.daemon.client.call('KillSession', { id: instance.id })).toEqual({ ok: true })
    expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'fixlogin']) })
    expect(alive(pid)).toBe(false)
    expect(remoteDirs(world.state)).toEqual([])
    expect(tokenFiles()).toEqual([])
    const log = readFileSync(world.daemon.paths.log, 'utf8')
    expect(log).toContain('hook session created')
    expect(log).not.toContain(remote.token)
    expect(events.ofKind('session.killed').map((frame) => frame.data.id)).toContain(instance.id)
    events.close()
  })

  it.each([
    ['noisy', 'its stdout must be only one JSON object'],
    ['missing', 'lacks token'],
    ['hang', 'gave no answer within 10 s'],
    ['fail', 'exited with 3; its stderr ends: launching fail\nno capacity left in the test cluster'],
    ['refuse', 'the remote agent server refused the session: '],
  ])('refuses a launch_cmd that acts %s, runs delete_cmd and leaves nothing on either side', async (slug, message) => {
    const before = hookCalls(world.state).length
    const reply = await create({ title: slug, backend: 'hook' })
    expect(reply.status).toBe(500)
    expect(reply.json.error.message).toContain(`could not start hook session "${slug}": `)
    expect(reply.json.error.message).toContain(message)
    expect(reply.json.error.message).toContain(`delete_cmd --name ${slug} ran`)
    const calls = hookCalls(world.state).slice(before)
    expect(calls.map((call) => call.hook)).toEqual(['launch', 'delete'])
    expect(calls[1]?.argv.slice(-2)).toEqual(['--name', slug])
    expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
    expect(remoteDirs(world.state)).toEqual([])
    expect(tokenFiles()).toEqual([])
    expect(readFileSync(world.daemon.paths.log, 'utf8')).not.toMatch(/"token":"(?!\[redacted\])/)
  })

  it('refuses a title whose slug another hook session holds', async () => {
    const first = await create({ title: 'ab', backend: 'hook' })
    expect(first.status, first.text).toBe(200)
    const launches = hookCalls(world.state).length
    const second = await create({ title: 'a_b', backend: 'hook' })
    expect(second.json.error.message).toBe('the slug "ab" of title "a_b" is used by hook session "ab"; choose another title')
    expect(hookCalls(world.state)).toHaveLength(launches)
    await world.daemon.client.call('KillSession', { id: first.json.data.instance.id })
  })

  it('is created with svc sessions create --backend hook', async () => {
    const env = { SERVICE_HOME: world.daemon.home }
    const created = await runCli(['sessions', 'create', 'cli-made', '--backend', 'hook', '--repo', world.repo], env)
    expect(created.code, created.stderr).toBe(0)
    expect(await session(world.daemon, 'cli-made')).toMatchObject({ backend: 'hook', remote_host: world.place.address })
    expect((await runCli(['sessions', 'kill', 'cli-made'], env)).code).toBe(0)
    expect(remoteDirs(world.state)).toEqual([])
  })

  it('refuses a kill while the repository config is not trusted, before its remote is touched', async () => {
    const reply = await create({ title: 'guarded', backend: 'hook' })
    expect(reply.status, reply.text).toBe(200)
    const { id } = reply.json.data.instance
    const config = join(world.repo, '.svc', 'config.json')
    const trusted = readFileSync(config, 'utf8')
    writeFileSync(config, JSON.stringify({ ...JSON.parse(trusted), default_program: 'codex' }))
    try {
      const refused = await world.daemon.post('/v1/KillSession', { id })
      expect(refused.json.error.message).toContain(`${world.repo}/.svc/config.json is not trusted`)
      expect(alive(remotePid(world.state, 'guarded'))).toBe(true)
      expect(await session(world.daemon, 'guarded')).toMatchObject({ can_kill: true, lifecycle_action: 'archive' })
    } finally {
      writeFileSync(config, trusted)
    }
    expect(await world.daemon.client.call('KillSession', { id })).toEqual({ ok: true })
  })

  it('never passes the credentials an origin URL carries: not on launch_cmd\'s argv, nor in the answer or the log', async () => {
    const origin = git(world.repo, 'remote', 'get-url', 'origin').trim()
    // Unreachable on purpose (the discard port on loopback): the launch fails at its clone.
    git(world.repo, 'remote', 'set-url', 'origin', 'https://svc-bot:s3cret-token@127.0.0.1:9/parser.git')
    try {
      const reply = await create({ title: 'secretive', backend: 'hook' })
      expect(reply.status).toBe(500)
      const launch = hookCalls(world.state).filter((call) => call.hook === 'launch').at(-1)
      expect(launch?.argv).toContain('https://127.0.0.1:9/parser.git')
      expect(JSON.stringify(launch)).not.toContain('s3cret-token')
      expect(reply.text).not.toContain('s3cret-token')
      expect(readFileSync(world.daemon.paths.log, 'utf8')).not.toContain('s3cret-token')
    } finally {
      git(world.repo, 'remote', 'set-url', 'origin', origin)
    }
  })

  it('refuses an agent server on plain http at a host that is not loopback unless remote_insecure_http_hosts lists it', async () => {
    await world.daemon.client.call('UnsetConfigValue', { key: 'remote_insecure_http_hosts' })
    try {
      const reply = await create({ title: 'clear', backend: 'hook' })
      expect(reply.json.error.message).toContain(`launch_cmd's agent server answers on plain http at ${world.place.address}, which is not loopback`)
      expect(reply.json.error.message).toContain('delete_cmd --name clear ran')
      expect(remoteDirs(world.state)).toEqual([])
      expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
    } finally {
      await world.daemon.client.call('SetConfigValue', { key: 'remote_insecure_http_hosts', value: world.place.address })
    }
  })

  it('runs with its hook config committed: the agent server does not judge the clone\'s config again', async () => {
    git(world.repo, 'add', '.svc/config.json')
    git(world.repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'hook config')
    git(world.repo, 'push', '-q', 'origin', 'main')
    const reply = await create({ title: 'committed', backend: 'hook', prompt: 'with the config on board' })
    expect(reply.status, reply.text).toBe(200)
    const { workspace } = remoteOf(world.state, 'committed')
    expect(existsSync(join(workspace, '.svc', 'config.json'))).toBe(true)
    await waitFor(async () => (await world.daemon.client.call('Preview', { id: reply.json.data.instance.id })).text.includes('with the config on board') || undefined)
    await world.daemon.client.call('KillSession', { id: reply.json.data.instance.id })
  })
})

describe('an untrusted repository config', () => {
  const untrusted = useHookWorld({ trust: false })

  it('refuses hook sessions naming the file, and runs nothing', async () => {
    const { backends } = await untrusted.daemon.client.call('ListBackends', { repo_path: untrusted.repo })
    expect(backends.find((entry) => entry.name === 'hook')?.reason).toContain(`${untrusted.repo}/.svc/config.json is not trusted`)
    const reply = await untrusted.daemon.post('/v1/CreateSession', { repo_path: untrusted.repo, backend: 'hook', title: 'x' })
    expect(reply.status).toBe(500)
    expect(reply.json.error.message).toContain(`${untrusted.repo}/.svc/config.json is not trusted`)
    expect(hookCalls(untrusted.state)).toEqual([])
    expect((await untrusted.daemon.client.call('Snapshot', {})).instances).toEqual([])
  })
})
