import { describe, expect, it } from 'vitest'
import { containersLabelled, docker, homeIdOf, useDockerWorld, waitFor, waitForSession } from '@svc/test-kit'

// A docker session: a container of docker.image, svc installed into it, its agent server
// published on 127.0.0.1 only, driven as a hook session is.
const world = useDockerWorld()

describe('a docker session', () => {
  it('runs in a labelled container of docker.image that svc installed itself into; the prompt is delivered and the agent answers', async () => {
    const backends = await world.daemon.client.call('ListBackends', { repo_path: world.repo })
    expect(backends.backends).toContainEqual(expect.objectContaining({ name: 'docker', status: 'available' }))
    const reply = await world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title: 'boxed', backend: 'docker', prompt: 'fix the parser' })
    expect(reply.status, reply.text).toBe(200)
    const row = await waitForSession(world.daemon, 'boxed', (session) => session.liveness_name === 'ready' && session.idle_reason !== undefined)
    expect(row).toMatchObject({ backend: 'docker', remote_host: 'docker', branch: 'agent/boxed' })
    // Labelled with the session and this home; svc installed under /opt/svc.
    const [container] = containersLabelled(`svc.session=${row.id}`)
    expect(container).toBe(`svc-${row.id}`)
    expect(containersLabelled(`svc.home=${homeIdOf(world.daemon.home)}`)).toEqual([container])
    expect(docker('exec', container as string, 'cat', '/opt/svc/.sha256').trim()).toMatch(/^[0-9a-f]{64}$/)
    // The agent server's port is published on loopback only.
    expect(docker('port', container as string).trim()).toMatch(/^7777\/tcp -> 127\.0\.0\.1:\d+$/)
    // The clone is at the session's branch, made from main.
    const branch = docker('exec', container as string, 'sh', '-c', 'cd "$HOME/svc-workspaces/boxed" && git rev-parse --abbrev-ref HEAD').trim()
    expect(branch).toBe('agent/boxed')
    // The fake agent got the prompt and answered.
    await waitFor(async () => (await world.daemon.client.call('Preview', { id: row.id })).text.includes('received: fix the parser'), 20_000)
    const sent = await world.daemon.client.call('SendPrompt', { id: row.id, prompt: 'and the lexer' })
    expect(sent.status).toBe('delivered')
    // Its container is on this engine: docker.host does not move while it lives.
    const moved = await world.daemon.post('/v1/SetConfigValue', { key: 'docker.host', value: 'tcp://127.0.0.1:1' })
    expect(moved.json.error.message).toContain('docker session "boxed" runs on the engine at ')
    expect((await world.daemon.client.call('GetConfig', {})).entries.find((entry) => entry.key === 'docker.host')?.value).not.toBe('tcp://127.0.0.1:1')
  })
})
