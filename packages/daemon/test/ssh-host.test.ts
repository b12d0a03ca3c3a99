import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSshHostWorld, commandLines, git, hostLeftovers, logShowing, openSshHostWorld, placeLabel, tempHomes, waitFor, waitForSession, type SshHostWorld } from '@svc/test-kit'

// backend "ssh": sessions on a host of ssh_hosts (the test's own sshd, in a network
// namespace where the machine allows one), whose PATH has node, git and tmux but no svc:
// the daemon installs itself there, then drives the agent server it starts.
const homes = tempHomes()
let world: SshHostWorld

beforeAll(async () => {
  world = await openSshHostWorld(homes, { env: { SVC_HOOK_TIMEOUT_MS: '30000', SVC_SSH_CHECK_MS: '300' } })
}, 120_000)
afterAll(async () => {
  await closeSshHostWorld(world)
  await homes.release()
})

const create = (body: Record<string, unknown>) => world.daemon.post('/v1/CreateSession', { repo_path: world.repo, backend: 'ssh', host: 'box', ...body })
const NOTHING_LEFT = { workspaces: [], hostDirs: [], tokenFiles: [], masters: [] }
const installLogs = () => readFileSync(world.daemon.paths.log, 'utf8').split('\n').filter((line) => line.includes('svc installed on the host')).length

describe(`an ssh session on a host of ssh_hosts, its sshd ${placeLabel()}`, () => {
  it('is listed by ListBackends with its hosts, unavailable until a host is picked', async () => {
    const { backends } = await world.daemon.client.call('ListBackends', { repo_path: world.repo })
    expect(backends.find((entry) => entry.name === 'ssh')).toMatchObject({ status: 'unavailable', hosts: ['box', 'forged', 'notmux', 'nowhere'], reason: expect.stringContaining('set ssh.host') })
  })

  it('runs remote_svc_command instead of installing svc when one is set: a command the host lacks is refused, nothing copied', async () => {
    const missing = join(world.sshd.remoteHome, 'no-such-svc')
    await world.daemon.client.call('SetConfigValue', { key: 'remote_svc_command', value: missing })
    try {
      const reply = await create({ title: 'override' })
      expect(reply.json.error.message).toContain(`svc is not installed on this host: command -v ${missing}`)
      expect(existsSync(world.installed)).toBe(false)
      expect(installLogs()).toBe(0)
      expect(hostLeftovers(world).workspaces).toEqual([])
    } finally {
      await world.daemon.client.call('UnsetConfigValue', { key: 'remote_svc_command' })
    }
  })

  it('installs svc on a host that lacks it (sha256 checked), then runs the session there: prompt delivered, row "on box", one master', async () => {
    expect(existsSync(world.installed)).toBe(false)
    const reply = await create({ title: 'first', prompt: 'hello over ssh' })
    expect(reply.status, reply.text).toBe(200)
    const { instance } = reply.json.data
    expect(instance).toMatchObject({ title: 'first', backend: 'ssh', remote_host: 'box' })

    // The tarball arrived whole: unpacked, marked with its sha256, svc run from there.
    const sha256 = createHash('sha256').update(readFileSync(world.tarball)).digest('hex')
    expect(readFileSync(join(world.installed, '.sha256'), 'utf8').trim()).toBe(sha256)
    expect(existsSync(join(world.installed, 'bin', 'svc'))).toBe(true)
    const pidFile = join(world.sshd.remoteHome, 'svc-workspaces', 'first.home', 'agent-server.pid')
    const server = readFileSync(pidFile, 'utf8').trim()
    expect(readFileSync(`/proc/${server}/cmdline`, 'utf8')).toContain(join(world.installed, 'lib'))
    await logShowing(world.daemon, 'svc installed on the host')
    expect(installLogs()).toBe(1)

    await waitForSession(world.daemon, 'first', (row) => row.liveness_name === 'ready' && row.idle_reason !== undefined, 30_000)
    const prompted = await world.daemon.client.call('SendPrompt', { id: instance.id, prompt: 'second prompt' })
    expect(prompted.status).toMatch(/^(delivered|delivery-unconfirmed)$/)
    const preview = await waitFor(async () => {
      const shown = await world.daemon.client.call('Preview', { id: instance.id })
      return shown.text.includes('received: second prompt') ? shown : undefined
    })
    expect(preview.text).toContain('hello over ssh')
    expect(hostLeftovers(world).masters).toHaveLength(1)
  })

  it('reuses the install for a second session (no second copy) over the same master', async () => {
    const before = statSync(world.installed).ino
    const reply = await create({ title: 'second' })
    expect(reply.status, reply.text).toBe(200)
    expect(statSync(world.installed).ino).toBe(before)
    expect(installLogs()).toBe(1)
    expect(hostLeftovers(world).masters).toHaveLength(1)
    await waitForSession(world.daemon, 'second', (row) => row.liveness_name === 'ready')
  })

  it('archives by a push to origin (the workspace then gone from the host) and restores on that branch', async () => {
    const { instance } = (await create({ title: 'kept-work', prompt: 'work' })).json.data
    await waitForSession(world.daemon, 'kept-work', (row) => row.liveness_name === 'ready')
    const workspace = join(world.sshd.remoteHome, 'svc-workspaces', 'kept-work')
    await import('node:fs/promises').then(({ writeFile }) => writeFile(join(workspace, 'notes.txt'), 'not committed\n'))
    const archived = await world.daemon.client.call('ArchiveSession', { id: instance.id })
    expect(archived.archived_ref).toBe(`${world.origin}#agent/kept-work`)
    expect(git(world.origin, 'show', 'agent/kept-work:notes.txt')).toBe('not committed\n')
    expect(existsSync(workspace)).toBe(false)
    await world.daemon.client.call('RestoreArchived', { id: instance.id })
    const restored = await waitForSession(world.daemon, 'kept-work', (row) => row.liveness_name === 'ready', 30_000)
    expect(restored.remote_host).toBe('box')
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('not committed\n')
    expect(installLogs()).toBe(1)
  })

  it('comes back after a home daemon restart: the master reopened, the forwards back, prompts delivered', async () => {
    const { id } = (await world.daemon.client.call('Snapshot', {})).instances.find((row) => row.title === 'first') as { id: string }
    await world.restart()
    await waitFor(async () => (await world.daemon.post('/v1/SendPrompt', { id, prompt: 'after the restart' })).status === 200 || undefined, 30_000)
    await waitFor(async () => (await world.daemon.client.call('Preview', { id })).text.includes('received: after the restart'))
    expect(hostLeftovers(world).masters).toHaveLength(1)
    await waitFor(async () => (await world.daemon.client.call('Snapshot', {})).instances.every((row) => row.remote_host === 'box' && !row.remote_unreachable) || undefined, 30_000)
  })

  it('undoes a create the home daemon died in at its next start: its workspace gone from the host, the other sessions kept', async () => {
    const workspace = join(world.sshd.remoteHome, 'svc-workspaces', 'interrupted')
    void create({ title: 'interrupted' }).catch(() => {})
    // svc is starting the agent server on the host: the clone is there, the session not yet.
    await waitFor(() => existsSync(workspace) || undefined, 30_000)
    await world.restart('SIGKILL')
    const rows = (await world.daemon.client.call('Snapshot', {})).instances.map((row) => row.title)
    expect(rows).not.toContain('interrupted')
    expect(rows).toContain('first')
    await waitFor(() => (!commandLines().includes(workspace) && !existsSync(workspace)) || undefined, 30_000)
    await waitFor(() => hostLeftovers(world).masters.length === 1 || undefined, 30_000)
  })

  it.each([
    ['notmux', 'cannot run svc: tmux is not installed here'],
    ['nowhere', 'cannot reach'],
    ['forged', 'does not match the host_key ssh_hosts pins for it (ssh: Host key verification failed)'],
  ])('refuses a host that is %s, saying why, leaving nothing behind', async (host, message) => {
    const reply = await create({ title: `refused-${host}`, host })
    expect(reply.status).toBe(500)
    expect(reply.json.error.message).toContain(`could not start ssh session "refused-${host}": `)
    expect(reply.json.error.message).toContain(message)
    const rows = (await world.daemon.client.call('Snapshot', {})).instances
    expect(rows.map((row) => row.title)).not.toContain(`refused-${host}`)
    expect(hostLeftovers(world).workspaces.filter((name) => name.startsWith('refused'))).toEqual([])
    expect(hostLeftovers(world).hostDirs).toEqual(['box'])
  })

  it('refuses a host ssh_hosts does not name, and a host with another backend, before anything', async () => {
    const unknown = await create({ title: 'unknown', host: 'nope' })
    expect(unknown.json.error.message).toContain('backend "ssh" is not available (ssh host "nope" is not in ssh_hosts; known: box, forged, notmux, nowhere)')
    const local = await create({ title: 'local', backend: 'local' })
    expect(local.json.error.message).toContain('names an ssh_hosts entry, which only backend "ssh" runs on')
  })

  it('refuses to remove the host while its sessions run there; kills end them all, then the master and nothing is left', async () => {
    const refused = await world.daemon.post('/v1/UnsetConfigValue', { key: 'ssh_hosts.box' })
    expect(refused.json.error.message).toMatch(/ssh host "box" runs session "[a-z-]+": archive or kill its sessions first/)
    for (const row of (await world.daemon.client.call('Snapshot', {})).instances) await world.daemon.client.call('KillSession', { id: row.id })
    expect(hostLeftovers(world)).toEqual(NOTHING_LEFT)
    // The install stays for the next session.
    expect(existsSync(join(world.installed, 'bin', 'svc'))).toBe(true)
  })
})
