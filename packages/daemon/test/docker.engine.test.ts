import { describe, expect, it } from 'vitest'
import { containersLabelled, useDockerWorld, waitFor, waitForSession } from '@svc/test-kit'

// Unreachable is not dead, in docker too: an engine restarted under a live session (on an
// engine of this file's own, named by docker.host) takes the container down and brings
// it back; the session is marked unreachable meanwhile and comes back without a restore.
const world = useDockerWorld({ privateEngine: true })

describe('a docker session whose engine restarts', () => {
  it('is unreachable while dockerd is down, and back (the same session, the agent answering) once it is up', async () => {
    await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: 'engine', backend: 'docker', prompt: 'start' })
    const before = await waitForSession(world.daemon, 'engine', (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
    const engine = world.engine as NonNullable<typeof world.engine>

    await engine.stop()
    const down = await waitForSession(world.daemon, 'engine', (row) => row.remote_unreachable === true, 60_000)
    expect(down).toMatchObject({ id: before.id, remote_host: 'docker', idle_reason: before.idle_reason })
    // Its work cannot be pushed first: nothing is deleted on a guess.
    const kill = await world.daemon.post('/v1/KillSession', { id: before.id })
    expect(kill.json.error.message).toContain('could not kill docker session "engine"')
    const prompt = await world.daemon.post('/v1/SendPrompt', { id: before.id, prompt: 'anyone?' })
    expect(prompt.json.error.message).toContain('the remote of docker session "engine" at docker does not answer')
    // The engine's answer is believed for a few seconds: ListBackends says so once it is asked again.
    const docker = async () => (await world.daemon.client.call('ListBackends', { repo_path: world.repo })).backends.find((backend) => backend.name === 'docker')
    const unavailable = await waitFor(async () => ((await docker())?.status === 'unavailable' ? docker() : undefined), 20_000)
    expect(unavailable?.reason).toContain('the Docker Engine does not answer at unix://')

    await engine.start()
    // The container restarts with the engine, its keeper starts the agent server again.
    const back = await waitForSession(world.daemon, 'engine', (row) => row.remote_unreachable === undefined && row.liveness_name === 'ready', 90_000)
    expect(back.id).toBe(before.id)
    expect(containersLabelled(`svc.session=${before.id}`)).toEqual([`svc-${before.id}`])
    const sent = await world.daemon.client.call('SendPrompt', { id: before.id, prompt: 'still there?' })
    expect(sent.status).toBe('delivered')
    await waitFor(async () => (await world.daemon.client.call('Preview', { id: before.id })).text.includes('received: still there?'), 20_000)
  }, 300_000)
})
