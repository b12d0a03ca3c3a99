import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hookCalls, hookSettings, placeLabel, remoteDirs, session, startSessionDaemon, useHookWorld, waitFor, waitForSession } from '@svc/test-kit'

// Every remote step is journaled: a home daemon SIGKILLed in the middle of one finishes or
// undoes it at its next start, and nothing is left that no record names.
const world = useHookWorld()

const tokens = () => join(world.daemon.home, 'remote-tokens')
const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir) : [])

/** Until launch_cmd has been called for `slug` `times` times. */
const launched = (slug: string, times = 1) =>
  waitFor(() => hookCalls(world.state).filter((call) => call.hook === 'launch' && call.argv.includes(slug)).length >= times || undefined, 40_000)

async function restart(): Promise<void> {
  await world.daemon.stop('SIGKILL')
  world.daemon = await startSessionDaemon({ home: world.daemon.home, settings: hookSettings(world.place) })
}

describe(`the journal of hook steps, agent servers ${placeLabel()}`, () => {
  it('stops a launch_cmd still at work before delete_cmd runs, so nothing it makes afterwards outlives the undo; strays are swept', async () => {
    void world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title: 'late', backend: 'hook' }).catch(() => {})
    await launched('late')
    // Files only a dead create could have left: no record or intent names them.
    mkdirSync(tokens(), { recursive: true, mode: 0o700 })
    writeFileSync(join(tokens(), '0123456789abcdef'), 'stale token', { mode: 0o600 })
    mkdirSync(join(world.daemon.home, 'remote-ssh', 'fedcba9876543210'), { recursive: true, mode: 0o700 })
    await restart()
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'late']) })
    // The script meant to clone and start an agent server 3 s after it began: it never did.
    await sleep(3_500)
    expect(remoteDirs(world.state)).not.toContain('late')
    expect(entries(tokens())).toEqual([])
    expect(entries(join(world.daemon.home, 'remote-ssh'))).toEqual([])
    expect(entries(join(world.daemon.home, 'creating'))).toEqual([])
  })

  it('lets a kill asked while the session is still being created wait for the create, then kill it', async () => {
    const creating = world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title: 'slow-kill', backend: 'hook' })
    await launched('slow-kill')
    const row = await waitForSession(world.daemon, 'slow-kill', (each) => each.status_name === 'loading')
    expect((await world.daemon.post('/v1/KillSession', { id: row.id })).status).toBe(200)
    expect((await creating).status).toBe(200)
    expect((await world.daemon.client.call('Snapshot', {})).instances.map((each) => each.title)).not.toContain('slow-kill')
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'slow-kill']) })
    await waitFor(() => !remoteDirs(world.state).includes('slow-kill') || undefined)
  })

  it('archives again a session whose restore the daemon died in: the new remote undone, its archive kept', async () => {
    const created = await world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title: 'slow-back', backend: 'hook' })
    expect(created.status, created.text).toBe(200)
    const { id } = created.json.data.instance
    await waitForSession(world.daemon, 'slow-back', (row) => row.liveness_name === 'ready')
    const { archived_ref } = await world.daemon.client.call('ArchiveSession', { id })
    void world.daemon.post('/v1/RestoreArchived', { id }).catch(() => {})
    await launched('slow-back', 2)
    await waitFor(() => existsSync(join(world.state, 'slow-back', 'endpoint.json')) || undefined, 40_000)
    await restart()
    expect(await session(world.daemon, 'slow-back')).toMatchObject({ id, liveness_name: 'archived', archived_ref, lifecycle_action: 'restore' })
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'slow-back']) })
    expect(remoteDirs(world.state)).not.toContain('slow-back')
    expect(entries(tokens())).toEqual([])
    expect(entries(join(world.daemon.home, 'creating'))).toEqual([])
    expect(await world.daemon.client.call('KillSession', { id })).toEqual({ ok: true })
  })

  it('finishes at the next start a kill and an archive the daemon died in while delete_cmd ran', async () => {
    const ids: Record<string, string> = {}
    for (const title of ['lag-kill', 'lag-archive']) {
      const reply = await world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title, backend: 'hook' })
      expect(reply.status, reply.text).toBe(200)
      ids[title] = reply.json.data.instance.id
      await waitForSession(world.daemon, title, (row) => row.liveness_name === 'ready')
    }
    const deleted = (slug: string) => waitFor(() => hookCalls(world.state).some((call) => call.hook === 'delete' && call.argv.includes(slug)) || undefined)
    void world.daemon.post('/v1/KillSession', { id: ids['lag-kill'] }).catch(() => {})
    await deleted('lag-kill')
    await restart()
    expect((await world.daemon.client.call('Snapshot', {})).instances.map((row) => row.title)).not.toContain('lag-kill')

    void world.daemon.post('/v1/ArchiveSession', { id: ids['lag-archive'] }).catch(() => {})
    await deleted('lag-archive')
    await restart()
    expect(await session(world.daemon, 'lag-archive')).toMatchObject({ liveness_name: 'archived', archived_ref: `${world.origin}#agent/lag-archive` })
    expect(entries(tokens())).toEqual([])
    expect(entries(join(world.daemon.home, 'creating'))).toEqual([])
    await waitFor(() => !remoteDirs(world.state).some((slug) => slug.startsWith('lag')) || undefined, 15_000)
    expect(await world.daemon.client.call('KillSession', { id: ids['lag-archive'] })).toEqual({ ok: true })
  })
})
