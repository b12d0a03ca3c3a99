import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { containersLabelled, deliveredThere, docker, accepts, git, netnsAvailable, refusesLocalOrigin, typeThrough, useRemoteDockerWorld, waitFor, waitForSession } from '@svc/test-kit'

// docker.host ssh://: an engine on "another machine" (dockerd and sshd in a network
// namespace). The container's port is published on that namespace's loopback, which
// only svc's ssh forward reaches from here; the engine's socket comes over the same master.
const world = netnsAvailable() ? useRemoteDockerWorld({ env: { SVC_SSH_CHECK_MS: '2000' } }) : undefined

const storedRecord = (id: string) => JSON.parse(readFileSync(join(world!.daemon.paths.sessionRecords, `${id}.json`), 'utf8'))
const ready = (title: string) => waitForSession(world!.daemon, title, (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
const delivered = (id: string, prompt: string) => deliveredThere(world!, id, prompt)
const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir) : [])
/** The engine's shared master (`ssh -O exit` on its control socket): as a dropped connection would. */
const dropMaster = (name: string) => spawnSync('ssh', ['-F', '/dev/null', '-o', `ControlPath=${join(world!.daemon.home, 'docker-ssh', name, 'c')}`, '-O', 'exit', 'x'])

describe.skipIf(!world)('docker sessions on an engine reached over ssh (docker.host ssh://)', () => {
  it('refuses an engine whose host key svc does not trust (none pinned or known, or another pinned), leaving nothing behind', async () => {
    const w = world!
    const dockerBackend = async () => (await w.daemon.client.call('ListBackends', { repo_path: w.repo })).backends.find((backend) => backend.name === 'docker')
    const refused = async (title: string, why: string) => {
      const reply = await w.daemon.post('/v1/CreateSession', { repo_path: w.repo, title, backend: 'docker', prompt: 'start' })
      expect(reply.json.error.message).toContain(`backend "docker" is not available (the Docker Engine at ${w.dockerHost} cannot be reached: ${why}`)
      expect(docker('ps', '-a', '--format', '{{.Names}}').trim()).toBe('')
      expect(entries(join(w.daemon.home, 'docker-ssh'))).toEqual([])
      expect(entries(join(w.daemon.home, 'remote-tokens'))).toEqual([])
      expect((await w.daemon.client.call('Snapshot', {})).instances).toEqual([])
    }
    expect(await dockerBackend()).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('svc has no host key for') })
    await refused('untrusted', 'svc has no host key for')
    await w.pin(w.sshd.wrongKey)
    // The engine's last answer is believed a few seconds.
    await waitFor(async () => (await dockerBackend())?.reason?.includes('does not match') || undefined, 20_000)
    await refused('forged', `the host key ${w.sshd.user}@${w.netns.address}:${w.sshd.port} presented does not match the key svc trusts for it`)
  })

  it('runs a session there once the key is pinned (an origin that is a path here refused): prompt, stream, archive to origin, restore, kill; its port reached only through the forward', async () => {
    const w = world!
    await w.pin()
    await waitFor(async () => (await w.daemon.client.call('ListBackends', { repo_path: w.repo })).backends.find((backend) => backend.name === 'docker')?.status === 'available', 20_000)
    // An origin that is a path here is not on the engine's machine: refused, nothing made.
    await refusesLocalOrigin(w)
    expect(entries(join(w.daemon.home, 'remote-tokens'))).toEqual([])

    const created = await w.daemon.client.call('CreateSession', { repo_path: w.repo, title: 'far', backend: 'docker', prompt: 'fix the parser' })
    const { id } = created.instance
    await ready('far')
    const container = `svc-${id}`
    expect(containersLabelled(`svc.session=${id}`)).toEqual([container])
    await waitFor(async () => (await w.daemon.client.call('Preview', { id })).text.includes('received: fix the parser'), 20_000)

    // Published on the engine machine's loopback, which this machine does not share: the endpoint is a forward.
    const published = Number(/127\.0\.0\.1:(\d+)/.exec(docker('port', container))?.[1])
    const forwarded = Number(new URL(storedRecord(id).remote.endpoint).port)
    expect(forwarded).not.toBe(published)
    expect(await accepts(published)).toBe(false)
    expect(await accepts(forwarded)).toBe(true)

    await typeThrough(w.daemon, id, 'typed through the forward')

    // The master drops: unreachable, not dead; back (a new forward) once it reopens.
    const engine = storedRecord(id).remote.docker.engine.name
    dropMaster(engine)
    await waitForSession(w.daemon, 'far', (row) => row.remote_unreachable === true, 20_000)
    await waitForSession(w.daemon, 'far', (row) => row.remote_unreachable === undefined, 30_000)
    await delivered(id, 'still there?')

    // Dropped again and reopened at once by another of its users (a second create's docker
    // commands), before this session's watch looks: its forward, gone with the old master, is put back.
    dropMaster(engine)
    const other = await w.daemon.client.call('CreateSession', { repo_path: w.repo, title: 'brief', backend: 'docker', prompt: 'start' })
    await ready('brief')
    await delivered(id, 'after the second drop')

    // Archive: the work reaches origin (over git daemon there), the container goes, and the forward with it.
    docker('exec', container, 'sh', '-c', 'cd "$HOME/svc-workspaces/far" && echo v1 > parser.txt && git add parser.txt && git -c user.email=a@b -c user.name=agent commit -q -m "parser, first cut"')
    const live = Number(new URL(storedRecord(id).remote.endpoint).port)
    const archived = await w.daemon.client.call('ArchiveSession', { id })
    expect(archived.archived_ref).toBe(`${w.originUrl}#agent/far`)
    expect(git(w.origin, 'log', '--format=%s', 'agent/far').split('\n')[0]).toBe('parser, first cut')
    expect(containersLabelled(`svc.session=${id}`)).toEqual([])
    expect(await accepts(live)).toBe(false)
    expect(storedRecord(id).remote.docker).toBeUndefined()

    // Restore: a new container there, cloned at the branch the archive pushed, reached through a new forward.
    await w.daemon.client.call('RestoreArchived', { id })
    await ready('far')
    expect(docker('exec', container, 'sh', '-c', 'cd "$HOME/svc-workspaces/far" && git log --format=%s -1').trim()).toBe('parser, first cut')
    await delivered(id, 'restored')

    // Kill of both: no container on that engine, no token, no record.
    for (const gone of [other.instance.id, id]) {
      await w.daemon.client.call('KillSession', { id: gone })
      expect(containersLabelled(`svc.session=${gone}`)).toEqual([])
    }
    expect(entries(join(w.daemon.home, 'remote-tokens'))).toEqual([])
    expect((await w.daemon.client.call('Snapshot', {})).instances).toEqual([])
  }, 300_000)

  it('reaches its session again after a daemon restart and after a crash (its master left running), the forward put back', async () => {
    const w = world!
    const { instance } = await w.daemon.client.call('CreateSession', { repo_path: w.repo, title: 'kept', backend: 'docker', prompt: 'start' })
    await ready('kept')
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      await w.restart(signal)
      await delivered(instance.id, `after ${signal}`)
      expect(await accepts(Number(new URL(storedRecord(instance.id).remote.endpoint).port))).toBe(true)
    }
    await w.daemon.client.call('KillSession', { id: instance.id })
    expect(containersLabelled(`svc.session=${instance.id}`)).toEqual([])
  }, 300_000)
})
