import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { appendFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createClient, DaemonError } from '@svc/protocol'
import {
  alive,
  git,
  hookCalls,
  placeLabel,
  recordEvents,
  remoteDirs,
  remoteOf,
  remotePid,
  runCli,
  session,
  FAKE_AGENT,
  hookSettings,
  startSessionDaemon,
  useHookWorld,
  waitFor,
  waitForSession,
} from '@svc/test-kit'

// Archive pushes a hook session's branch from its remote to origin, then tears the remote
// down; restore launches a new remote on that branch.
const world = useHookWorld()

const tokenFile = (id: string) => join(world.daemon.home, 'remote-tokens', id)
const committer = ['-c', 'user.email=agent@example.com', '-c', 'user.name=agent']
/** The subjects of `branch` on the bare origin, newest first. */
const originLog = (branch: string) => git(world.origin, 'log', '--format=%s', branch).trim().split('\n')

async function createHook(title: string, prompt: string) {
  const reply = await world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title, backend: 'hook', prompt })
  expect(reply.status, reply.text).toBe(200)
  return waitForSession(world.daemon, title, (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
}

/** Until the remote pane of the home session `id` shows `text`. */
function paneShows(id: string, text: string) {
  return waitFor(async () => (await world.daemon.client.call('Preview', { id })).text.includes(text), 15_000)
}

describe(`archive and restore of a hook session whose agent server runs ${placeLabel()}`, () => {
  it('pushes commits and a snapshot of uncommitted work, tears the remote down, and restores onto a new remote on that branch', async () => {
    const created = await createHook('keep', 'write the parser')
    const before = remoteOf(world.state, 'keep')
    const pid = remotePid(world.state, 'keep')
    // The agent's work on the remote: one commit, then a change and a new file not committed.
    await writeFile(join(before.workspace, 'parser.txt'), 'v1\n')
    git(before.workspace, 'add', 'parser.txt')
    git(before.workspace, ...committer, 'commit', '-q', '-m', 'parser, first cut')
    await appendFile(join(before.workspace, 'parser.txt'), 'v2 not committed\n')
    await writeFile(join(before.workspace, 'notes.txt'), 'untracked notes\n')
    const launches = hookCalls(world.state).length
    const events = await recordEvents(world.daemon.client)

    const archived = await world.daemon.client.call('ArchiveSession', { id: created.id })
    // archived_path holds the same for older clients; archived_ref says what it is.
    expect(archived).toEqual({ ok: true, archived_path: `${world.origin}#agent/keep`, archived_ref: `${world.origin}#agent/keep` })
    // On origin, on the session's own branch: the snapshot over the agent's commit, holding exactly what was not committed.
    expect(originLog('agent/keep').slice(0, 3)).toEqual(['svc: snapshot before archive', 'parser, first cut', 'init'])
    expect(git(world.origin, 'show', '--name-only', '--format=', 'agent/keep').trim().split('\n').sort()).toEqual(['notes.txt', 'parser.txt'])
    expect(git(world.origin, 'show', 'agent/keep:parser.txt')).toBe('v1\nv2 not committed\n')
    // The default branch is not the session's: untouched.
    expect(originLog('main')).toEqual(['init'])
    // The remote is gone: delete_cmd ran, the agent server stopped, the token file removed.
    expect(hookCalls(world.state).slice(launches)).toEqual([expect.objectContaining({ hook: 'delete', argv: expect.arrayContaining(['--name', 'keep']) })])
    expect(alive(pid)).toBe(false)
    expect(remoteDirs(world.state)).toEqual([])
    expect(existsSync(tokenFile(created.id))).toBe(false)
    const row = await session(world.daemon, 'keep')
    expect(row).toMatchObject({ id: created.id, backend: 'hook', liveness_name: 'archived', lifecycle_action: 'restore', archived_ref: `${world.origin}#agent/keep` })
    expect(row.remote_host).toBeUndefined()
    // Nothing to reach while archived.
    const prompt = await world.daemon.post('/v1/SendPrompt', { id: created.id, prompt: 'hello?' })
    expect(prompt.json.error.message).toContain('restore it with RestoreArchived first')
    const again = await world.daemon.post('/v1/ArchiveSession', { id: created.id })
    expect(again.json.error.message).toBe('session "keep" is already archived')
    // Every client hears of it, under the home id.
    await events.next('session.archived', (frame) => frame.data.id === created.id)
    events.close()

    // A restarted home daemon keeps it archived, asking nothing of the torn-down remote.
    await world.daemon.stop()
    world.daemon = await startSessionDaemon({ home: world.daemon.home, settings: hookSettings(world.place) })
    expect(await session(world.daemon, 'keep')).toMatchObject({ id: created.id, liveness_name: 'archived', lifecycle_action: 'restore' })
    expect(readFileSync(world.daemon.paths.log, 'utf8')).not.toContain('has no token file')
    const restoredEvents = await recordEvents(world.daemon.client)

    const restored = await world.daemon.client.call('RestoreArchived', { id: created.id })
    const launch = hookCalls(world.state).at(-1)
    expect(launch?.hook).toBe('launch')
    expect(launch?.argv.slice(-11)).toEqual(['--name', 'keep', '--title', 'keep', '--repo', world.origin, '--branch', 'agent/keep', '--base', 'main', '--restore'])
    // A new agent server on the pushed branch, the snapshot's files in its workspace.
    const after = remoteOf(world.state, 'keep')
    expect(after.token).not.toBe(before.token)
    expect(restored.worktree_path).toBe(after.workspace)
    expect(readFileSync(join(after.workspace, 'notes.txt'), 'utf8')).toBe('untracked notes\n')
    expect(git(after.workspace, 'log', '-1', '--format=%s')).toBe('svc: snapshot before archive\n')
    const [remoteRow] = (await createClient({ url: after.url, token: after.token }).call('Snapshot', {})).instances
    expect(remoteRow).toMatchObject({ title: 'keep', in_place: true, path: after.workspace })
    expect(readFileSync(tokenFile(created.id), 'utf8')).toBe(after.token)
    // Live again under the same home id, and the new agent was told it resumes, and what for.
    const live = await waitForSession(world.daemon, 'keep', (row) => row.liveness_name === 'ready' && row.remote_unreachable === undefined)
    expect(live).toMatchObject({ id: created.id, lifecycle_action: 'archive', remote_host: world.place.address })
    await paneShows(created.id, 'restored on a new machine')
    await paneShows(created.id, 'write the parser')
    await world.daemon.client.call('SendPrompt', { id: created.id, prompt: 'carry on after restore' })
    await paneShows(created.id, 'carry on after restore')
    await restoredEvents.next('session.restored', (frame) => frame.data.id === created.id)
    restoredEvents.close()

    // Killed once archived again: no remote to tear down, only the record goes.
    await world.daemon.client.call('ArchiveSession', { id: created.id })
    const deletes = hookCalls(world.state).filter((call) => call.hook === 'delete').length
    expect(await world.daemon.client.call('KillSession', { id: created.id })).toEqual({ ok: true })
    expect(hookCalls(world.state).filter((call) => call.hook === 'delete')).toHaveLength(deletes)
    expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
  })

  it('refuses an archive whose push origin rejects, saying why, with the session still running and nothing torn down', async () => {
    const created = await createHook('stay', 'hold on')
    const remote = remoteOf(world.state, 'stay')
    // The agent server's push is behind its token, as every route of it.
    const guessed = await createClient({ url: remote.url, token: 'guessed' }).agentServer.push('main').catch((error: unknown) => error)
    expect(guessed).toBeInstanceOf(DaemonError)
    expect((guessed as DaemonError).status).toBe(401)
    await writeFile(join(remote.workspace, 'draft.txt'), 'not pushed\n')
    const hook = join(world.origin, 'hooks', 'pre-receive')
    writeFileSync(hook, '#!/bin/sh\necho "origin is frozen for the release" >&2\nexit 1\n', { mode: 0o755 })
    const originHead = git(world.origin, 'rev-parse', 'main')
    const calls = hookCalls(world.state).length
    try {
      const reply = await world.daemon.post('/v1/ArchiveSession', { id: created.id })
      expect(reply.status).toBe(500)
      expect(reply.json.error.message).toContain('could not archive hook session "stay": the remote at ')
      expect(reply.json.error.message).toContain('origin is frozen for the release')
      expect(reply.json.error.message).toContain('its agent was started there again, its work kept there and nothing torn down')
      expect(reply.json.error.message).not.toContain(remote.token)
    } finally {
      rmSync(hook)
    }
    expect(git(world.origin, 'rev-parse', 'main')).toBe(originHead)
    expect(hookCalls(world.state)).toHaveLength(calls)
    expect(alive(remotePid(world.state, 'stay'))).toBe(true)
    expect(existsSync(tokenFile(created.id))).toBe(true)
    // Its agent was started again: live, once it has drawn, under the same remote.
    await waitForSession(world.daemon, 'stay', (row) => row.liveness_name === 'ready' && row.lifecycle_action === 'archive' && row.remote_host === world.place.address)
    await world.daemon.client.call('SendPrompt', { id: created.id, prompt: 'still here' })
    await paneShows(created.id, 'still here')
    // Its work stayed in the workspace, committed as the snapshot a retry pushes.
    expect(readFileSync(join(remote.workspace, 'draft.txt'), 'utf8')).toBe('not pushed\n')
    await world.daemon.client.call('ArchiveSession', { id: created.id })
    expect(git(world.origin, 'show', 'agent/stay:draft.txt')).toBe('not pushed\n')
    expect(git(world.origin, 'rev-parse', 'main')).toBe(originHead)
    await world.daemon.client.call('KillSession', { id: created.id })
  })

  it('stops the agent before it pushes, as a local archive does: what the agent saves on its way out is on origin', async () => {
    const reply = await world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title: 'saver', backend: 'hook', program: `node ${FAKE_AGENT} --last-words last-words.txt` })
    expect(reply.status, reply.text).toBe(200)
    await waitForSession(world.daemon, 'saver', (row) => row.liveness_name === 'ready')
    await world.daemon.client.call('ArchiveSession', { id: reply.json.data.instance.id })
    expect(git(world.origin, 'show', 'agent/saver:last-words.txt')).toBe('saved on the way out\n')
    await world.daemon.client.call('KillSession', { id: reply.json.data.instance.id })
  })

  it('lands two sessions archived in turn each on its own branch, never on the default branch', async () => {
    const sessions = [await createHook('left', 'one side'), await createHook('right', 'the other side')]
    for (const title of ['left', 'right']) {
      const { workspace } = remoteOf(world.state, title)
      await writeFile(join(workspace, `${title}.txt`), `${title}\n`)
      git(workspace, 'add', `${title}.txt`)
      git(workspace, ...committer, 'commit', '-q', '-m', `${title} work`)
    }
    const originMain = git(world.origin, 'rev-parse', 'main')
    for (const created of sessions) await world.daemon.client.call('ArchiveSession', { id: created.id })
    expect(originLog('agent/left').slice(0, 2)).toEqual(['left work', 'init'])
    expect(originLog('agent/right').slice(0, 2)).toEqual(['right work', 'init'])
    expect(git(world.origin, 'rev-parse', 'main')).toBe(originMain)
    for (const created of sessions) await world.daemon.client.call('KillSession', { id: created.id })
  })

  it('kills a session only once its work is on origin: pushed to its own branch first, and no branch for one that did no work', async () => {
    const [busy, idle] = [await createHook('killed-busy', 'work'), await createHook('killed-idle', 'nothing')]
    const { workspace } = remoteOf(world.state, 'killed-busy')
    await writeFile(join(workspace, 'draft.txt'), 'not committed\n')
    for (const created of [busy, idle]) expect(await world.daemon.client.call('KillSession', { id: created.id })).toEqual({ ok: true })
    expect(originLog('agent/killed-busy').slice(0, 2)).toEqual(['svc: snapshot before archive', 'init'])
    expect(git(world.origin, 'show', 'agent/killed-busy:draft.txt')).toBe('not committed\n')
    expect(git(world.origin, 'branch', '--list', 'agent/killed-idle')).toBe('')
  })

  it('is restored with svc sessions restore --force-reap when its remote is lost: a new remote on its branch', async () => {
    const created = await createHook('lost', 'start')
    // Its agent exits (the row says dead), then its agent server dies: nothing can push its work now.
    await world.daemon.client.call('SendPrompt', { id: created.id, prompt: '/exit' })
    await waitForSession(world.daemon, 'lost', (row) => row.liveness_name === 'dead')
    const pid = remotePid(world.state, 'lost')
    process.kill(pid, 'SIGKILL')
    await waitForSession(world.daemon, 'lost', (row) => row.remote_unreachable === true)
    const env = { SERVICE_HOME: world.daemon.home }
    // A dead session needs no flag to be restored, but its work is not deleted on a guess.
    const calls = hookCalls(world.state).length
    const refused = await runCli(['sessions', 'restore', 'lost'], env)
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('so its work cannot be pushed before its remote is replaced')
    expect(refused.stderr).toContain('nothing was torn down')
    expect(hookCalls(world.state)).toHaveLength(calls)
    expect(existsSync(remoteOf(world.state, 'lost').workspace)).toBe(true)

    const restored = await runCli(['sessions', 'restore', 'lost', '--force-reap'], env)
    expect(restored.code, restored.stderr).toBe(0)
    // The lost remote was torn down first; it had pushed nothing, so its branch starts afresh from the checkout's.
    const [teardown, relaunch] = hookCalls(world.state).slice(-2)
    expect(teardown?.argv.slice(-2)).toEqual(['--name', 'lost'])
    expect(relaunch?.argv.slice(-4)).toEqual(['--branch', 'agent/lost', '--base', 'main'])
    const after = remoteOf(world.state, 'lost')
    expect(git(after.workspace, 'rev-parse', 'HEAD')).toBe(git(world.origin, 'rev-parse', 'main'))
    const live = await waitForSession(world.daemon, 'lost', (row) => row.liveness_name === 'ready' && row.remote_unreachable === undefined)
    expect(live.id).toBe(created.id)
    await paneShows(created.id, 'restored on a new machine')
    await world.daemon.client.call('KillSession', { id: created.id })
    expect(readdirSync(join(world.daemon.home, 'remote-tokens'))).toEqual([])
  })
})
