import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSshHostWorld, hostLeftovers, openSshHostWorld, placeLabel, tempHomes, waitFor, type SshHostWorld } from '@svc/test-kit'

// 30 sessions created at once on one ssh host: one ssh connection carries them all (sshd's
// MaxSessions of 10 limits its session channels, which svc queues below), and every one
// reaches ready. The report: another tool hit "channel open failed" at 34.
const homes = tempHomes()
let world: SshHostWorld
const COUNT = 30

beforeAll(async () => {
  world = await openSshHostWorld(homes, { env: { SVC_HOOK_TIMEOUT_MS: '120000' } })
}, 120_000)
afterAll(async () => {
  await closeSshHostWorld(world)
  await homes.release()
})

describe(`${COUNT} sessions on one ssh host, its sshd ${placeLabel()}`, () => {
  it('are created at once over one master, all reach ready, and all go with their kill, the master last', async () => {
    const titles = Array.from({ length: COUNT }, (_, index) => `many-${index}`)
    const replies = await Promise.all(titles.map((title) => world.daemon.post('/v1/CreateSession', { repo_path: world.repo, backend: 'ssh', host: 'box', title })))
    for (const reply of replies) expect(reply.status, reply.text).toBe(200)
    expect(hostLeftovers(world).masters).toHaveLength(1)
    expect(world.sshd.stderr()).not.toMatch(/open failed|MaxSessions|no more sessions/i)
    const rows = await waitFor(async () => {
      const { instances } = await world.daemon.client.call('Snapshot', {})
      return instances.length === COUNT && instances.every((row) => row.liveness_name === 'ready' && !row.remote_unreachable) ? instances : undefined
    }, 120_000)
    expect(new Set(rows.map((row) => row.remote_host))).toEqual(new Set(['box']))
    await Promise.all(rows.map((row) => world.daemon.client.call('KillSession', { id: row.id })))
    expect(hostLeftovers(world)).toEqual({ workspaces: [], hostDirs: [], tokenFiles: [], masters: [] })
  }, 300_000)
})
