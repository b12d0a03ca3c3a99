import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSshHostWorld, keyLine, openSshHostWorld, runCli, tempHomes, waitFor, type SshHostWorld } from '@svc/test-kit'
import { TestTerminal } from '../../cli/test/terminal.js'

// svc hosts add / list / remove against the test's own sshd; --scan asks a person on a
// terminal (a tmux pane of the test's) before it pins the key it fetched.
const homes = tempHomes()
let world: SshHostWorld
let env: Record<string, string>

beforeAll(async () => {
  world = await openSshHostWorld(homes)
  env = { SERVICE_HOME: world.daemon.home }
}, 120_000)
afterAll(async () => {
  await closeSshHostWorld(world)
  await homes.release()
})

const hosts = async () => JSON.parse((await runCli(['hosts', 'list', '--json'], env)).stdout).hosts as Record<string, { host: string; port?: number; user?: string; host_key: string }>
const target = () => `${world.sshd.user}@${world.sshd.place.address}:${world.sshd.port}`
/** The key's SHA256 fingerprint as ssh-keygen shows it. */
const fingerprintOf = (line: string) => execFileSync('ssh-keygen', ['-lf', '-'], { input: line, encoding: 'utf8' }).split(' ')[1] ?? ''

describe('svc hosts', () => {
  it('adds a host with the key given (its comment dropped), lists it, and removes it', async () => {
    const key = keyLine(world.sshd.hostKey)
    const added = await runCli(['hosts', 'add', 'extra', target(), '--host-key', `${key} comment`], env)
    expect(added.code, added.stderr).toBe(0)
    expect((await hosts()).extra).toEqual({ host: world.sshd.place.address, port: world.sshd.port, user: world.sshd.user, host_key: key })
    const again = await runCli(['hosts', 'add', 'extra', target(), '--host-key', key], env)
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('ssh host "extra" is already in ssh_hosts; remove it first')
    expect((await runCli(['hosts', 'remove', 'extra'], env)).code).toBe(0)
    expect((await hosts()).extra).toBeUndefined()
    const gone = await runCli(['hosts', 'remove', 'extra'], env)
    expect(gone.stderr).toContain('no ssh host "extra" in ssh_hosts')
  })

  it('refuses a bad name, a line that is not a public key, and no key at all, changing nothing', async () => {
    const before = await hosts()
    const badName = await runCli(['hosts', 'add', 'Bad_Name', target(), '--host-key', keyLine(world.sshd.hostKey)], env)
    expect(badName.stderr).toContain('is not a host name for ssh_hosts')
    const badKey = await runCli(['hosts', 'add', 'badkey', target(), '--host-key', 'not a key'], env)
    expect(badKey.stderr).toContain('ssh_hosts.badkey.host_key must be one public key line')
    const noKey = await runCli(['hosts', 'add', 'nokey', target()], env)
    expect(noKey.code).toBe(2)
    expect(noKey.stderr).toContain('give the host key')
    expect(await hosts()).toEqual(before)
  })

  it('--scan refuses without a terminal: a key is never pinned unseen', async () => {
    const scanned = await runCli(['hosts', 'add', 'scanned', target(), '--scan'], env)
    expect(scanned.code).toBe(2)
    expect(scanned.stderr).toContain('asks a person to check the key on a terminal')
    expect((await hosts()).scanned).toBeUndefined()
  })

  it.each([
    ['n', false],
    ['y', true],
  ])('--scan shows the fingerprint and pins the key only when the person answers yes (%s)', async (answer, pinned) => {
    const terminal = new TestTerminal(world.dir)
    try {
      terminal.run(['hosts', 'add', `scanned-${answer}`, target(), '--scan'], env)
      const key = keyLine(world.sshd.hostKey)
      await waitFor(() => terminal.text().includes('[y/N]') || undefined, 30_000)
      expect(terminal.text()).toContain(fingerprintOf(key))
      terminal.keys(answer, 'Enter')
      await waitFor(() => /attach exited \d/.test(terminal.text()) || undefined, 30_000)
      expect(terminal.text()).toContain(pinned ? 'attach exited 0' : 'not pinned')
      expect((await hosts())[`scanned-${answer}`]?.host_key).toBe(pinned ? key : undefined)
    } finally {
      terminal.close()
    }
  })
})
