import { existsSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { containersLabelled, docker, git, session, typeThrough, useDockerWorld, waitFor, waitForSession } from '@svc/test-kit'

// A docker session streams, archives (its branch pushed to origin, the container
// removed), restores onto a new container, and is killed with nothing left behind.
const world = useDockerWorld()

const tokenFile = (id: string) => join(world.daemon.home, 'remote-tokens', id)
const originLog = (branch: string) => git(world.origin, 'log', '--format=%s', branch).trim().split('\n')
const ready = (title: string) => waitForSession(world.daemon, title, (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined)
/** Runs a shell line in the session's workspace inside its container. */
const inWorkspace = (container: string, title: string, line: string) => docker('exec', container, 'sh', '-c', `cd "$HOME/svc-workspaces/${title}" && ${line}`)

describe('a docker session, streamed, archived, restored and killed', () => {
  it("streams the container's pane; archive pushes its work and removes the container; restore makes a new one on that branch; kill leaves no container", async () => {
    const created = await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: 'cycle', backend: 'docker', prompt: 'start' })
    const { id } = created.instance
    await ready('cycle')
    const [first] = containersLabelled(`svc.session=${id}`)

    // The home's terminal stream is the container's pane: keys reach the agent there.
    await typeThrough(world.daemon, id, 'typed through the home')

    // The agent's work: one commit and one file not committed.
    inWorkspace(first as string, 'cycle', 'echo v1 > parser.txt && git add parser.txt && git -c user.email=a@b -c user.name=agent commit -q -m "parser, first cut" && echo notes > notes.txt')
    const archived = await world.daemon.client.call('ArchiveSession', { id })
    expect(archived.archived_ref).toBe(`${world.origin}#agent/cycle`)
    expect(originLog('agent/cycle').slice(0, 3)).toEqual(['svc: snapshot before archive', 'parser, first cut', 'init'])
    expect(git(world.origin, 'show', 'agent/cycle:notes.txt')).toBe('notes\n')
    expect(containersLabelled(`svc.session=${id}`)).toEqual([])
    expect(existsSync(tokenFile(id))).toBe(false)
    expect(await session(world.daemon, 'cycle')).toMatchObject({ liveness_name: 'archived', backend: 'docker' })
    expect((await session(world.daemon, 'cycle')).remote_host).toBeUndefined()

    // Restore: a new container, cloned at the branch the archive pushed.
    await world.daemon.client.call('RestoreArchived', { id })
    await ready('cycle')
    const [second] = containersLabelled(`svc.session=${id}`)
    expect(second).toBe(first)
    expect(inWorkspace(second as string, 'cycle', 'git log --format=%s -1 && cat notes.txt')).toBe('svc: snapshot before archive\nnotes\n')
    expect(await session(world.daemon, 'cycle')).toMatchObject({ remote_host: 'docker', liveness_name: 'ready' })

    // Kill: work pushed first (a new commit reaches origin), then no container, no token, no record.
    inWorkspace(second as string, 'cycle', 'echo more > more.txt')
    await world.daemon.client.call('KillSession', { id })
    expect(containersLabelled(`svc.session=${id}`)).toEqual([])
    expect(existsSync(tokenFile(id))).toBe(false)
    expect(git(world.origin, 'show', 'agent/cycle:more.txt')).toBe('more\n')
    await waitFor(async () => !(await world.daemon.client.call('Snapshot', {})).instances.some((row) => row.id === id))
  })

  it('keeps a container whose work origin refuses, its agent running, until kill --discard', async () => {
    const created = await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: 'stuck', backend: 'docker', prompt: 'start' })
    const { id } = created.instance
    await ready('stuck')
    const container = `svc-${id}`
    inWorkspace(container, 'stuck', 'echo unpushed > work.txt')
    // Origin refuses every push.
    const hook = join(world.origin, 'hooks', 'pre-receive')
    await writeFile(hook, '#!/bin/sh\necho no pushes today >&2\nexit 1\n', { mode: 0o755 })
    try {
      const kill = await world.daemon.post('/v1/KillSession', { id })
      expect(kill.json.error.message).toContain('could not kill docker session "stuck": the remote at docker could not push')
      expect(kill.json.error.message).toContain('its agent was started there again, its work kept there and nothing torn down')
      expect(containersLabelled(`svc.session=${id}`)).toEqual([container])
      expect(inWorkspace(container, 'stuck', 'cat work.txt')).toBe('unpushed\n')
      expect(await session(world.daemon, 'stuck')).toMatchObject({ remote_host: 'docker', remote_path: `${container}:/root/svc-workspaces/stuck` })
      await world.daemon.client.call('KillSession', { id, discard: true })
      expect(containersLabelled(`svc.session=${id}`)).toEqual([])
    } finally {
      await rm(hook, { force: true })
    }
  })
})
