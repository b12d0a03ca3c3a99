import { existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import { appendFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  alive,
  closeProvisionWorld,
  commandLines,
  git,
  hookCalls,
  leftovers,
  masterPid,
  NOTHING_LEFT,
  openProvisionWorld,
  placeLabel,
  record,
  recordEvents,
  runCli,
  remoteAgentServers,
  session,
  sshDirOf,
  sshSettings,
  startSessionDaemon,
  tempHomes,
  waitFor,
  waitForSession,
  type ProvisionWorld,
} from '@svc/test-kit'

// provision_cmd makes a "host" (the test's own sshd, behind a veth hop where the machine
// allows a network namespace); the home daemon reaches it over ssh with the host key
// pinned, starts svc agent-server there and drives it through a forwarded local port.
const homes = tempHomes()
let world: ProvisionWorld

const env = { SVC_HOOK_TIMEOUT_MS: '30000', SVC_SSH_CHECK_MS: '300' }

beforeAll(async () => {
  world = await openProvisionWorld(homes, { env })
})
afterAll(async () => {
  await closeProvisionWorld(world)
  await homes.release()
})

const create = (body: Record<string, unknown>) => world.daemon.post('/v1/CreateSession', { repo_path: world.repo, backend: 'hook', ...body })
const workspaces = () => leftovers(world).workspaces

/**
 * A session whose agent worked on the host (one commit, then an untracked file) and whose
 * agent server then died: the host answers over ssh, the agent server does not.
 */
async function crashedAfterWork(title: string) {
  const reply = await create({ title, prompt: 'work, then crash' })
  expect(reply.status, reply.text).toBe(200)
  const { id } = reply.json.data.instance
  await waitForSession(world.daemon, title, (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
  const workspace = join(world.sshd.remoteHome, 'svc-workspaces', title)
  await writeFile(join(workspace, `${title}.txt`), 'done\n')
  git(workspace, 'add', `${title}.txt`)
  git(workspace, '-c', 'user.email=agent@example.com', '-c', 'user.name=agent', 'commit', '-q', '-m', `${title} work`)
  await writeFile(join(workspace, 'notes.txt'), 'not committed\n')
  const [server] = remoteAgentServers(world.sshd)
  process.kill(server as number, 'SIGKILL')
  await waitForSession(world.daemon, title, (row) => row.remote_unreachable === true)
  return { id: id as string, workspace }
}

const storedRecord = (id: string) => JSON.parse(readFileSync(join(world.daemon.paths.sessionRecords, `${id}.json`), 'utf8'))

describe(`a provisioned hook session over ssh, its sshd ${placeLabel()}`, () => {
  it('lists hook as available with a trusted provision_cmd and delete_cmd', async () => {
    const { backends } = await world.daemon.client.call('ListBackends', { repo_path: world.repo })
    expect(backends.find((entry) => entry.name === 'hook')).toMatchObject({ status: 'available' })
  })

  it('is created over ssh with the host key pinned, takes prompts and keys through the forward, survives a dropped master, and is killed with everything it made', async () => {
    const events = await recordEvents(world.daemon.client)
    const reply = await create({ title: 'over-ssh', prompt: 'hello over ssh' })
    expect(reply.status, reply.text).toBe(200)
    const instance = reply.json.data.instance
    expect(instance).toMatchObject({ title: 'over-ssh', backend: 'hook', remote_host: world.sshd.place.address })

    // provision_cmd ran with the contract's arguments.
    const [provision] = hookCalls(world.state)
    expect(provision?.argv.slice(-10)).toEqual(['--name', 'over-ssh', '--title', 'over-ssh', '--repo', world.origin, '--branch', 'agent/over-ssh', '--base', 'main'])

    // The record: a local forward as its endpoint, the host as ssh reaches it.
    const stored = storedRecord(instance.id)
    expect(stored.remote).toMatchObject({ via: 'provision', slug: 'over-ssh', ssh: { host: world.sshd.place.address, port: world.sshd.port, user: world.sshd.user } })
    expect(stored.remote.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

    // known_hosts holds exactly the host key, in a 0700 directory of the session's own.
    const { dir } = sshDirOf(world.daemon, instance.id)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(join(dir, 'known_hosts')).mode & 0o777).toBe(0o600)
    const hostKey = readFileSync(world.sshd.hostKey, 'utf8').split(' ').slice(0, 2).join(' ')
    expect(readFileSync(join(dir, 'known_hosts'), 'utf8')).toBe(`[${world.sshd.place.address}]:${world.sshd.port} ${hostKey}\n`)
    const master = masterPid(world.daemon, instance.id)
    expect(master).toBeGreaterThan(0)

    // On the host: the clone at the branch, and the agent server svc started.
    expect(workspaces()).toEqual(['over-ssh', 'over-ssh.home'])
    const [server] = remoteAgentServers(world.sshd)
    expect(alive(server as number)).toBe(true)

    // The token: in its 0600 file, on no command line, in no other file of the home, not in the log.
    const token = readFileSync(join(world.daemon.home, 'remote-tokens', instance.id), 'utf8').trim()
    expect(token.length).toBeGreaterThan(10)
    expect(commandLines()).not.toContain(token)
    expect(readFileSync(world.daemon.paths.log, 'utf8')).not.toContain(token)
    expect(JSON.stringify(stored)).not.toContain(token)

    // Prompts reach the remote pane; SendPrompt answers the remote's verdict.
    await waitForSession(world.daemon, 'over-ssh', (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
    const prompted = await world.daemon.client.call('SendPrompt', { id: instance.id, prompt: 'second prompt' })
    expect(prompted.status).toMatch(/^(delivered|delivery-unconfirmed)$/)
    const preview = await waitFor(async () => {
      const shown = await world.daemon.client.call('Preview', { id: instance.id })
      return shown.text.includes('second prompt') ? shown : undefined
    })
    expect(preview.text).toContain('hello over ssh')

    // The home's stream is the remote pane's, through the forward.
    const stream = await world.daemon.client.stream(instance.id)
    await record(stream).shows('second prompt')
    stream.input('typed over ssh')
    await waitFor(async () => (await world.daemon.client.call('Preview', { id: instance.id })).text.includes('typed over ssh'))
    stream.detach()
    await stream.closed

    // The master dies under the live session: unreachable meanwhile, then reopened and forwarded again.
    process.kill(master as number, 'SIGKILL')
    await waitFor(() => events.ofKind('session.updated').some((frame) => frame.data.id === instance.id && frame.data.remote_unreachable === true), 20_000)
    await waitForSession(world.daemon, 'over-ssh', (row) => row.remote_unreachable !== true, 30_000)
    const reopened = masterPid(world.daemon, instance.id)
    expect(reopened).toBeGreaterThan(0)
    expect(reopened).not.toBe(master)
    await world.daemon.client.call('SendPrompt', { id: instance.id, prompt: 'after the reopen' })
    await waitFor(async () => (await world.daemon.client.call('Preview', { id: instance.id })).text.includes('after the reopen'))

    // Kill: the remote agent server stopped and its workspace removed, the master ended,
    // delete_cmd run, the ssh directory, the token and the row gone.
    expect(await world.daemon.client.call('KillSession', { id: instance.id })).toEqual({ ok: true })
    expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'over-ssh']) })
    await waitFor(() => !alive(server as number))
    expect(alive(reopened as number)).toBe(false)
    expect(leftovers(world)).toEqual(NOTHING_LEFT)
    expect(events.ofKind('session.killed').map((frame) => frame.data.id)).toContain(instance.id)
    events.close()
  })

  it.each([
    ['wrongkey', 'does not match the host_key provision_cmd printed (ssh: Host key verification failed)'],
    ['nokey', 'provision_cmd\'s answer is not usable: it printed no host_key'],
    ['unreachable', 'over ssh (ssh: ssh: connect to host'],
  ])('refuses a host that acts %s, runs delete_cmd and leaves nothing behind', async (slug, message) => {
    const before = hookCalls(world.state).length
    const reply = await create({ title: slug })
    expect(reply.status).toBe(500)
    expect(reply.json.error.message).toContain(`could not start hook session "${slug}": `)
    expect(reply.json.error.message).toContain(message)
    expect(reply.json.error.message).toContain(`delete_cmd --name ${slug} ran`)
    const calls = hookCalls(world.state).slice(before)
    expect(calls.map((call) => call.hook)).toEqual(['provision', 'delete'])
    expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
    expect(leftovers(world)).toEqual(NOTHING_LEFT)
  })

  it('refuses a host without svc, saying to install it or set remote_svc_command, and leaves nothing behind', async () => {
    const missing = join(world.dir, 'no-such-svc')
    await world.daemon.client.call('SetConfigValue', { key: 'remote_svc_command', value: missing })
    try {
      const reply = await create({ title: 'nosvc' })
      expect(reply.status).toBe(500)
      expect(reply.json.error.message).toContain('svc is not installed on this host: command -v ')
      expect(reply.json.error.message).toContain('set the global remote_svc_command to its full path')
      expect(reply.json.error.message).toContain('delete_cmd --name nosvc ran')
      expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'nosvc']) })
      expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
      expect(leftovers(world)).toEqual(NOTHING_LEFT)
    } finally {
      await world.daemon.client.call('SetConfigValue', { key: 'remote_svc_command', value: sshSettings(world).remote_svc_command as string })
    }
  })

  it('is archived by a push from its host, which is then torn down, and restored onto a newly provisioned host on that branch', async () => {
    const reply = await create({ title: 'kept', prompt: 'write the parser' })
    expect(reply.status, reply.text).toBe(200)
    const { id } = reply.json.data.instance
    await waitForSession(world.daemon, 'kept', (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
    const workspace = join(world.sshd.remoteHome, 'svc-workspaces', 'kept')
    const master = masterPid(world.daemon, id)
    const [server] = remoteAgentServers(world.sshd)
    // The agent's work on the host: one commit, then a change and a new file not committed.
    await writeFile(join(workspace, 'parser.txt'), 'v1\n')
    git(workspace, 'add', 'parser.txt')
    git(workspace, '-c', 'user.email=agent@example.com', '-c', 'user.name=agent', 'commit', '-q', '-m', 'parser, first cut')
    await appendFile(join(workspace, 'parser.txt'), 'v2 not committed\n')
    await writeFile(join(workspace, 'notes.txt'), 'untracked notes\n')
    const calls = hookCalls(world.state).length

    const archived = await world.daemon.client.call('ArchiveSession', { id })
    expect(archived.archived_path).toBe(`${world.origin}#agent/kept`)
    // On origin, on its own branch: the snapshot over the agent's commit, holding exactly what was not committed.
    expect(git(world.origin, 'log', '--format=%s', 'agent/kept').trim().split('\n').slice(0, 3)).toEqual(['svc: snapshot before archive', 'parser, first cut', 'init'])
    expect(git(world.origin, 'show', 'agent/kept:parser.txt')).toBe('v1\nv2 not committed\n')
    expect(git(world.origin, 'show', 'agent/kept:notes.txt')).toBe('untracked notes\n')
    expect(git(world.origin, 'log', '--format=%s', 'main').trim()).toBe('init')
    // The host is torn down: agent server, its workspace (pushed first) and home, the master,
    // the ssh directory and the token; then delete_cmd took the host away.
    expect(hookCalls(world.state).slice(calls)).toEqual([expect.objectContaining({ hook: 'delete', argv: expect.arrayContaining(['--name', 'kept']) })])
    expect(alive(server as number)).toBe(false)
    expect(alive(master as number)).toBe(false)
    expect(leftovers(world)).toEqual(NOTHING_LEFT)
    const row = await session(world.daemon, 'kept')
    expect(row).toMatchObject({ id, backend: 'hook', liveness_name: 'archived', lifecycle_action: 'restore' })
    expect(row.remote_host).toBeUndefined()
    expect(storedRecord(id).remote.ssh).toBeUndefined()

    const restored = await world.daemon.client.call('RestoreArchived', { id })
    const provision = hookCalls(world.state).at(-1)
    expect(provision?.hook).toBe('provision')
    expect(provision?.argv.slice(-11)).toEqual(['--name', 'kept', '--title', 'kept', '--repo', world.origin, '--branch', 'agent/kept', '--base', 'main', '--restore'])
    // A new master and agent server, on a fresh clone of the pushed branch.
    const reopened = masterPid(world.daemon, id)
    expect(reopened).toBeGreaterThan(0)
    expect(reopened).not.toBe(master)
    const [again] = remoteAgentServers(world.sshd)
    expect(alive(again as number)).toBe(true)
    expect(restored.worktree_path).toBe(workspace)
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('untracked notes\n')
    expect(git(workspace, 'log', '-1', '--format=%s')).toBe('svc: snapshot before archive\n')
    expect(git(workspace, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('agent/kept\n')
    const live = await waitForSession(world.daemon, 'kept', (row) => row.liveness_name === 'ready' && row.remote_unreachable === undefined)
    expect(live).toMatchObject({ id, lifecycle_action: 'archive', remote_host: world.sshd.place.address })
    expect(storedRecord(id).remote.ssh).toMatchObject({ host: world.sshd.place.address, port: world.sshd.port })
    const shows = (text: string) => waitFor(async () => (await world.daemon.client.call('Preview', { id })).text.includes(text), 15_000)
    await shows('restored on a new machine')
    await world.daemon.client.call('SendPrompt', { id, prompt: 'carry on after restore' })
    await shows('carry on after restore')

    expect(await world.daemon.client.call('KillSession', { id })).toEqual({ ok: true })
    expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
    await waitFor(() => !alive(again as number))
    expect(alive(reopened as number)).toBe(false)
    expect(leftovers(world)).toEqual(NOTHING_LEFT)
  })

  it('stays archived when its branch is gone from origin at restore, saying so, with delete_cmd run and nothing left on the host', async () => {
    const reply = await create({ title: 'gone', prompt: 'on the side' })
    expect(reply.status, reply.text).toBe(200)
    const { id } = reply.json.data.instance
    await waitForSession(world.daemon, 'gone', (row) => row.liveness_name === 'ready')
    await world.daemon.client.call('ArchiveSession', { id })
    git(world.origin, 'branch', '-q', '-D', 'agent/gone')
    const calls = hookCalls(world.state).length

    const refused = await world.daemon.post('/v1/RestoreArchived', { id })
    expect(refused.status).toBe(500)
    expect(refused.json.error.message).toContain('could not restore hook session "gone": starting svc agent-server on ')
    expect(refused.json.error.message).toContain('failed: branch agent/gone is not on origin: nothing to restore')
    expect(refused.json.error.message).toContain('delete_cmd --name gone ran')
    expect(hookCalls(world.state).slice(calls).map((call) => [call.hook, call.argv.at(-1)])).toEqual([
      ['provision', '--restore'],
      ['delete', 'gone'],
    ])
    expect(await session(world.daemon, 'gone')).toMatchObject({ id, liveness_name: 'archived', lifecycle_action: 'restore' })
    expect(storedRecord(id).remote.archived).toMatchObject({ origin: world.origin })
    expect(leftovers(world)).toEqual(NOTHING_LEFT)
    expect(await world.daemon.client.call('KillSession', { id })).toEqual({ ok: true })
  })

  it('puts the work of a session whose agent server died on origin by plain git over ssh before a forced restore replaces it', async () => {
    const { id, workspace } = await crashedAfterWork('crashed')

    expect(await world.daemon.client.call('RestoreSession', { id, force_reap: true })).toEqual({ ok: true })
    // The host answered though its agent server did not: git there pushed the commit and a snapshot of the rest.
    expect(git(world.origin, 'log', '--format=%s', 'agent/crashed').trim().split('\n').slice(0, 3)).toEqual(['svc: snapshot before archive', 'crashed work', 'init'])
    expect(git(world.origin, 'show', 'agent/crashed:notes.txt')).toBe('not committed\n')
    // And the new remote is on that branch, the uncommitted file back in its workspace.
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('not committed\n')
    await waitForSession(world.daemon, 'crashed', (row) => row.liveness_name === 'ready' && row.remote_unreachable === undefined)
    expect(await world.daemon.client.call('KillSession', { id })).toEqual({ ok: true })
    expect(leftovers(world)).toEqual(NOTHING_LEFT)
  })

  it('keeps a workspace whose work cannot reach origin on its host, the session lost with the place named, until kill --discard', async () => {
    const { id, workspace } = await crashedAfterWork('stuck')
    const refuser = join(world.origin, 'hooks', 'pre-receive')
    await writeFile(refuser, '#!/bin/sh\necho "origin refuses pushes today" >&2\nexit 1\n', { mode: 0o755 })
    try {
      const calls = hookCalls(world.state).length
      for (const force_reap of [false, true]) {
        const kill = await world.daemon.post('/v1/KillSession', { id, force_reap })
        expect(kill.status).toBe(500)
        expect(kill.json.error.message).toContain(`its work stays at ${world.sshd.place.address}:${workspace}, the session lost`)
        expect(kill.json.error.message).toContain('kill it with discard')
      }
      // Nothing was deleted, and the host was not handed to delete_cmd.
      expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('not committed\n')
      expect(git(workspace, 'log', '-1', '--format=%s')).toBe('svc: snapshot before archive\n')
      expect(hookCalls(world.state).slice(calls)).toEqual([])
      expect(await session(world.daemon, 'stuck')).toMatchObject({ id, liveness_name: 'lost', remote_path: `${world.sshd.place.address}:${workspace}`, can_kill: true })
      expect(remoteAgentServers(world.sshd).filter(alive)).toEqual([])

      const discarded = await runCli(['sessions', 'kill', 'stuck', '--discard'], { SERVICE_HOME: world.daemon.home })
      expect(discarded.code, discarded.stderr).toBe(0)
      expect(discarded.stderr).toContain(`discarding ${world.sshd.place.address}:${workspace}: the work there that is not on origin`)
      expect(hookCalls(world.state).slice(calls)).toEqual([expect.objectContaining({ hook: 'delete', argv: expect.arrayContaining(['--name', 'stuck']) })])
      expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
      expect(leftovers(world)).toEqual(NOTHING_LEFT)
    } finally {
      rmSync(refuser, { force: true })
    }
  })

  it('releases the host of a create the home daemon died in at its next start: agent server, workspace, master and ssh directory, then delete_cmd', async () => {
    const workspace = join(world.sshd.remoteHome, 'svc-workspaces', 'interrupted')
    void create({ title: 'interrupted' }).catch(() => {})
    // svc is starting the agent server on the host: the clone is there, the session not yet.
    await waitFor(() => existsSync(workspace) || undefined, 30_000)
    await world.daemon.stop('SIGKILL')
    world.daemon = await startSessionDaemon({ home: world.daemon.home, env, settings: sshSettings(world) })
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'interrupted']) })
    expect((await world.daemon.client.call('Snapshot', {})).instances.map((row) => row.title)).not.toContain('interrupted')
    await waitFor(() => !commandLines().includes(workspace) || undefined)
    expect(leftovers(world)).toEqual(NOTHING_LEFT)
  })

  it('reopens the master and its forward when the home daemon restarts', async () => {
    const reply = await create({ title: 'restarted', prompt: 'before the restart' })
    expect(reply.status, reply.text).toBe(200)
    const { id } = reply.json.data.instance
    await waitForSession(world.daemon, 'restarted', (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
    const master = masterPid(world.daemon, id)
    await world.daemon.stop()
    // A stopped daemon ends its masters; the session's known_hosts stays for the next start.
    expect(master !== undefined && alive(master)).toBe(false)
    expect(existsSync(join(sshDirOf(world.daemon, id).dir, 'known_hosts'))).toBe(true)
    // Meanwhile another local user listens on the forward's old port: no token may reach it.
    const heard: string[] = []
    const squatter = createServer((request, response) => {
      heard.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`)
      response.destroy()
    }).on('upgrade', (request, socket) => {
      heard.push(`upgrade ${request.url} ${request.headers.authorization ?? ''}`)
      socket.destroy()
    })
    const oldPort = Number(new URL(storedRecord(id).remote.endpoint).port)
    await new Promise<void>((resolve) => squatter.listen(oldPort, '127.0.0.1', resolve))

    world.daemon = await startSessionDaemon({ home: world.daemon.home, env, settings: sshSettings(world) })
    await waitFor(() => masterPid(world.daemon, id), 20_000)
    // Until the forward is back the remote does not answer: the prompt is refused, not lost.
    await waitFor(async () => (await world.daemon.post('/v1/SendPrompt', { id, prompt: 'after the restart' })).status === 200 || undefined, 20_000)
    await waitFor(async () => (await world.daemon.client.call('Preview', { id })).text.includes('after the restart'))
    squatter.close()
    expect(heard).toEqual([])
    // The forward found its old port taken and moved: the record follows it.
    expect(Number(new URL(storedRecord(id).remote.endpoint).port)).not.toBe(oldPort)
    expect(await session(world.daemon, 'restarted')).toMatchObject({ remote_host: world.sshd.place.address })
    expect(await world.daemon.client.call('KillSession', { id })).toEqual({ ok: true })
    expect(leftovers(world)).toEqual(NOTHING_LEFT)
  })
})
