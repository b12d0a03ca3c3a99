import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { accepts, containersLabelled, deliveredThere, docker, git, netnsAvailable, refusesLocalOrigin, typeThrough, useRemoteDockerWorld, waitFor, waitForSession } from '@svc/test-kit'

// docker.host tcp://: an engine on "another machine" (dockerd in a network namespace,
// listening on its address) with no ssh. The container's port is published on that
// namespace's loopback; svc reaches it through the engine itself (docker exec), by a
// listener of its own on this machine's 127.0.0.1.
const world = netnsAvailable() ? useRemoteDockerWorld({ over: 'tcp' }) : undefined

const storedRecord = (id: string) => JSON.parse(readFileSync(join(world!.daemon.paths.sessionRecords, `${id}.json`), 'utf8'))
const ready = (title: string) => waitForSession(world!.daemon, title, (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
const endpointPort = (id: string) => Number(new URL(storedRecord(id).remote.endpoint).port)
const delivered = (id: string, prompt: string) => deliveredThere(world!, id, prompt)

describe.skipIf(!world)('docker sessions on an engine on another machine reached over tcp:// (docker.host tcp://)', () => {
  it('refuses an origin that is a path here, then runs a session there: prompt, stream, the engine down and back, archive to origin, kill; its port reached only through docker exec', async () => {
    const w = world!
    expect(w.dockerHost).toMatch(/^tcp:\/\/10\./)
    const backends = await w.daemon.client.call('ListBackends', { repo_path: w.repo })
    expect(backends.backends.find((backend) => backend.name === 'docker')?.status).toBe('available')

    // An origin that is a path here is not on the engine's machine: refused as for ssh://, nothing made.
    await refusesLocalOrigin(w)

    const { instance } = await w.daemon.client.call('CreateSession', { repo_path: w.repo, title: 'far', backend: 'docker', prompt: 'fix the parser' })
    const { id } = instance
    await ready('far')
    const container = `svc-${id}`
    expect(containersLabelled(`svc.session=${id}`)).toEqual([container])
    await waitFor(async () => (await w.daemon.client.call('Preview', { id })).text.includes('received: fix the parser'), 20_000)

    // Published on the engine machine's loopback, which this machine does not share: the endpoint is svc's listener here.
    const published = Number(/127\.0\.0\.1:(\d+)/.exec(docker('port', container))?.[1])
    expect(storedRecord(id).remote.docker).toMatchObject({ container, port: published, piped: true })
    expect(await accepts(published)).toBe(false)
    expect(await accepts(endpointPort(id))).toBe(true)
    await typeThrough(w.daemon, id, 'typed through docker exec')

    // The engine stops: unreachable, not dead; back, the same session answering, once it is up.
    await w.engine.stop()
    await waitForSession(w.daemon, 'far', (row) => row.remote_unreachable === true, 60_000)
    await w.engine.start()
    await waitForSession(w.daemon, 'far', (row) => row.remote_unreachable === undefined && row.liveness_name === 'ready', 90_000)
    await delivered(id, 'still there?')

    // Archive: the work reaches origin (over git daemon there), the container goes, and the listener with it.
    docker('exec', container, 'sh', '-c', 'cd "$HOME/svc-workspaces/far" && echo v1 > parser.txt && git add parser.txt && git -c user.email=a@b -c user.name=agent commit -q -m "parser, first cut"')
    const listening = endpointPort(id)
    const archived = await w.daemon.client.call('ArchiveSession', { id })
    expect(archived.archived_ref).toBe(`${w.originUrl}#agent/far`)
    expect(git(w.origin, 'log', '--format=%s', 'agent/far').split('\n')[0]).toBe('parser, first cut')
    expect(containersLabelled(`svc.session=${id}`)).toEqual([])
    expect(await accepts(listening)).toBe(false)

    // Restore: a new container there, cloned at the branch the archive pushed, reached through a new listener; kill leaves nothing.
    await w.daemon.client.call('RestoreArchived', { id })
    await ready('far')
    await delivered(id, 'restored')
    const restored = endpointPort(id)
    await w.daemon.client.call('KillSession', { id })
    expect(containersLabelled(`svc.session=${id}`)).toEqual([])
    expect(await accepts(restored)).toBe(false)
    expect((await w.daemon.client.call('Snapshot', {})).instances).toEqual([])
  }, 400_000)

  it('reaches its session again after a daemon restart and after a crash, its listener put back on the same port', async () => {
    const w = world!
    const { instance } = await w.daemon.client.call('CreateSession', { repo_path: w.repo, title: 'kept', backend: 'docker', prompt: 'start' })
    await ready('kept')
    const port = endpointPort(instance.id)
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      await w.restart(signal)
      await delivered(instance.id, `after ${signal}`)
      expect(endpointPort(instance.id)).toBe(port)
      expect(await accepts(port)).toBe(true)
    }
    await w.daemon.client.call('KillSession', { id: instance.id })
    expect(containersLabelled(`svc.session=${instance.id}`)).toEqual([])
    expect(await accepts(port)).toBe(false)
  }, 300_000)
})
