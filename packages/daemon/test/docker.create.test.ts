import { describe, expect, it } from 'vitest'
import { containersLabelled, docker, homeIdOf, removeImages, useDockerWorld, waitFor, waitForSession } from '@svc/test-kit'

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

  it('in an image that has this svc already, starts it there and leaves no copy of the tarball behind', async () => {
    const seed = await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: 'seed', backend: 'docker' })
    await waitForSession(world.daemon, 'seed', (session) => session.liveness_name === 'ready')
    // The seed's container, svc in it, as an image: without the seed's serve file and workspace, as a built image would be.
    const seeded = `${world.image}-with-svc`
    const container = `svc-${seed.instance.id}`
    docker('commit', container, seeded)
    const cleaning = `${container}-clean`
    docker('run', '--name', cleaning, seeded, 'sh', '-c', 'rm -rf /opt/svc.serve "$HOME/svc-workspaces"')
    docker('commit', cleaning, seeded)
    docker('rm', cleaning)
    try {
      await world.daemon.client.call('SetConfigValue', { key: 'docker.image', value: seeded })
      const again = await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: 'again', backend: 'docker' })
      await waitForSession(world.daemon, 'again', (session) => session.liveness_name === 'ready')
      const inside = `svc-${again.instance.id}`
      // The image's own svc runs it; the tarball a local engine gets while svc is looked for is gone.
      expect(docker('exec', inside, 'cat', '/opt/svc/.sha256').trim()).toMatch(/^[0-9a-f]{64}$/)
      expect(docker('exec', inside, 'sh', '-c', 'ls /tmp/svc-*.tar.gz 2>/dev/null; true').trim()).toBe('')
      await world.daemon.client.call('KillSession', { id: again.instance.id })
    } finally {
      await world.daemon.client.call('SetConfigValue', { key: 'docker.image', value: world.image })
      await world.daemon.client.call('KillSession', { id: seed.instance.id })
      // A container of it still being removed would keep the image.
      for (const left of docker('ps', '-aq', '--filter', `ancestor=${seeded}`).split('\n').filter(Boolean)) docker('rm', '-f', '-v', left)
      removeImages(seeded)
    }
  })
})
