import { existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createClient } from '@svc/protocol'
import {
  alive,
  CLI_MAIN,
  hookCalls,
  logShowing,
  placeLabel,
  recordEvents,
  remoteDirs,
  remoteOf,
  remotePid,
  session,
  hookSettings,
  startSessionDaemon,
  useHookWorld,
  waitFor,
  waitForSession,
} from '@svc/test-kit'

// Unreachable is not dead: the remote's last state is kept while it does not answer.
const world = useHookWorld()

async function createHook(title: string) {
  const reply = await world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title, backend: 'hook', prompt: 'start' })
  expect(reply.status, reply.text).toBe(200)
  return waitForSession(world.daemon, title, (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
}

/** SIGKILLs the agent server of `slug`: nothing answers at its endpoint, its tmux goes on. */
function killRemote(slug: string): void {
  process.kill(remotePid(world.state, slug), 'SIGKILL')
}

/** Starts the agent server of `slug` again on its home, workspace and port, where launch.mjs had it. */
function restartRemote(slug: string): void {
  const remote = remoteOf(world.state, slug)
  const listen = `${world.place.address}:${new URL(remote.url).port}`
  const child = world.place.spawn(process.execPath, [CLI_MAIN, 'agent-server', '--home', remote.home, '--workspace', remote.workspace, '--listen', listen], {
    stdio: ['ignore', 'ignore', openSync(join(world.state, slug, 'err'), 'a')],
  })
  // delete_cmd stops it by this file.
  writeFileSync(join(world.state, slug, 'pid'), String(child.pid))
}

describe(`a hook session whose agent server ${placeLabel()} stops answering`, () => {
  it('keeps its last state marked remote_unreachable, refuses a kill without force_reap, and comes back without a restore', async () => {
    const before = await createHook('far')
    const remote = remoteOf(world.state, 'far')
    const [remoteBefore] = (await createClient({ url: remote.url, token: remote.token }).call('Snapshot', {})).instances
    killRemote('far')

    const down = await waitForSession(world.daemon, 'far', (row) => row.remote_unreachable === true)
    expect(down).toMatchObject({ id: before.id, liveness_name: before.liveness_name, idle_reason: before.idle_reason, remote_host: world.place.address })
    const kill = await world.daemon.post('/v1/KillSession', { id: before.id })
    expect(kill.status).toBe(500)
    // Its work cannot be pushed first, so it is not deleted on a guess.
    expect(kill.json.error.message).toContain(`could not kill hook session "far": its remote at ${world.place.address} does not answer, so its work cannot be pushed before its remote is removed; nothing was torn down`)
    expect(kill.json.error.message).toContain('pass force_reap if its host is gone')
    const prompt = await world.daemon.post('/v1/SendPrompt', { id: before.id, prompt: 'anyone?' })
    expect(prompt.json.error.message).toContain(`the remote of hook session "far" at ${world.place.address} does not answer`)
    expect(hookCalls(world.state).filter((call) => call.hook === 'delete')).toEqual([])

    // At once, while the killed server may still be an unreaped zombie: its singleton lock counts as free.
    restartRemote('far')
    const back = await waitForSession(world.daemon, 'far', (row) => row.remote_unreachable === undefined && row.liveness_name === 'ready', 40_000)
    expect(back.id).toBe(before.id)
    // The same remote session, re-attached by its own daemon: nothing was restored or recreated.
    const [remoteAfter] = (await createClient({ url: remote.url, token: remote.token }).call('Snapshot', {})).instances
    expect(remoteAfter).toMatchObject({ id: remoteBefore?.id, created_at: remoteBefore?.created_at, liveness_name: 'ready' })
  })

  it('is found again by a restarted home daemon, from its record and token file: row live, events flowing', async () => {
    const { id } = await session(world.daemon, 'far')
    await world.daemon.stop()
    world.daemon = await startSessionDaemon({ home: world.daemon.home, settings: hookSettings(world.place) })
    const events = await recordEvents(world.daemon.client)
    await waitForSession(world.daemon, 'far', (row) => row.id === id && row.remote_unreachable === undefined && row.liveness_name === 'ready')
    const from = events.frames.length
    const sentAt = Date.now()
    await world.daemon.client.call('SendPrompt', { id, prompt: 'after the restart' })
    // The remote's evidence of this prompt, read by the new home daemon and announced under the home id.
    await events.next('session.updated', (frame) => frame.data.id === id && Date.parse(frame.data.last_prompt_attempt_at ?? '') >= sentAt - 1000, from)
    events.close()
    expect(await world.daemon.client.call('KillSession', { id })).toEqual({ ok: true })
    expect(remoteDirs(world.state)).toEqual([])
  })

  it('runs delete_cmd at the next start for a create the home daemon died in, leaving nothing on either side', async () => {
    const creating = join(world.daemon.home, 'creating')
    const tokens = join(world.daemon.home, 'remote-tokens')
    void world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title: 'slow', backend: 'hook' }).catch(() => {})
    // launch_cmd has started the agent server and waits before printing its endpoint.
    await waitFor(() => existsSync(join(world.state, 'slow', 'endpoint.json')), 40_000)
    expect(readdirSync(creating).map((name) => JSON.parse(readFileSync(join(creating, name), 'utf8')) as unknown)).toEqual([
      expect.objectContaining({ title: 'slow', repo_path: world.repo, hook: expect.objectContaining({ slug: 'slow', branch: 'agent/slow', script: expect.objectContaining({ pgid: expect.any(Number) }) }) }),
    ])
    const server = remotePid(world.state, 'slow')
    await world.daemon.stop('SIGKILL')
    world.daemon = await startSessionDaemon({ home: world.daemon.home, settings: hookSettings(world.place) })
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'slow']) })
    expect(remoteDirs(world.state)).not.toContain('slow')
    expect(alive(server)).toBe(false)
    expect(readdirSync(creating)).toEqual([])
    expect(existsSync(tokens) ? readdirSync(tokens) : []).toEqual([])
    expect((await world.daemon.client.call('Snapshot', {})).instances.map((row) => row.title)).not.toContain('slow')
    await logShowing(world.daemon, 'removed what an interrupted CreateSession left behind')
  })

  it('is reaped with force_reap: delete_cmd runs, the record and the token go', async () => {
    const { id } = await createHook('gone')
    killRemote('gone')
    await waitForSession(world.daemon, 'gone', (row) => row.remote_unreachable === true)
    expect(await world.daemon.client.call('KillSession', { id, force_reap: true })).toEqual({ ok: true })
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'gone']) })
    expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
    await waitFor(() => remoteDirs(world.state).length === 0)
  })
})
