import { readdirSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { containersLabelled, docker, git, homeIdOf, useDockerWorld, waitFor } from '@svc/test-kit'

// A docker create the home daemon died in is undone at the next start (its container's
// work pushed first); a container labelled with this home that no record names is swept.
const world = useDockerWorld()

const ours = () => containersLabelled(`svc.home=${homeIdOf(world.daemon.home)}`)
const journal = () => readdirSync(join(world.daemon.home, 'creating'))

describe('docker sessions across a crash of the home daemon', () => {
  it('removes the container of a create the daemon died in, with no record left', async () => {
    void world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title: 'crashed', backend: 'docker', prompt: 'hello' }).catch(() => {})
    // Killed once the container runs, while svc is installed and started in it.
    await waitFor(() => (homeIdOf(world.daemon.home) && ours().length === 1) || undefined, 30_000)
    await world.restart('SIGKILL')
    expect(ours()).toEqual([])
    expect(journal()).toEqual([])
    expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
  })

  it("sweeps a container of this home that no record names, pushing its work first; another home's is left be", async () => {
    // A session's container as a daemon that lost its record would leave it: its agent committed work there.
    const created = await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: 'orphan', backend: 'docker' })
    const container = `svc-${created.instance.id}`
    docker('exec', container, 'sh', '-c', 'cd "$HOME/svc-workspaces/orphan" && echo kept > kept.txt && git add kept.txt && git -c user.email=a@b -c user.name=agent commit -q -m "work of a lost record"')
    const other = docker('run', '-d', '--label', 'svc.home=another-home', '--label', 'svc.session=x', world.image, 'sh', '-c', 'exec tail -f /dev/null').trim()
    try {
      await world.restart('SIGTERM', () => rm(join(world.daemon.home, 'sessions', `${created.instance.id}.json`)))
      expect(ours()).toEqual([])
      expect(git(world.origin, 'log', '--format=%s', '-1', 'agent/orphan').trim()).toBe('work of a lost record')
      expect(containersLabelled('svc.home=another-home')).toHaveLength(1)
    } finally {
      docker('rm', '-f', other)
    }
  })
})
