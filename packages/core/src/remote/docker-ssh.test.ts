import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CONFIG_KEYS } from '../config/keys.js'
import { sshEngine } from './docker-engine.js'
import { engineKey } from './docker-ssh.js'

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINO6+fwDy47pylzTBV7GUGzLXac94Gd3g5Cy8d3D3PU0'
const OTHER = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBKMw4yJ1dEGmEe7nS6u1jj0bF3CrSw4DFaqTTjJ8y2b'

describe('docker.host ssh://', () => {
  it('names where ssh reaches the engine, and its master by user, host and port', () => {
    expect(sshEngine('ssh://me@box.internal:2222')).toEqual({ name: 'me@box.internal-2222', host: 'box.internal', port: 2222, user: 'me', remote_port: 0 })
    expect(sshEngine(' ssh://10.0.0.2 ')).toEqual({ name: '10.0.0.2', host: '10.0.0.2', remote_port: 0 })
    expect(sshEngine('ssh://[fd00::2]')?.host).toBe('fd00::2')
    for (const other of ['', 'unix:///var/run/docker.sock', 'tcp://box:2376']) expect(sshEngine(other)).toBeUndefined()
  })

  it('is refused when it is not ssh://[user@]host[:port]: a password, a path, a user that could be an option', () => {
    for (const bad of ['ssh://me:pw@box', 'ssh://box/var/run/docker.sock', 'ssh://-oProxyCommand=x@box', 'ssh://', 'ssh://box?x=1']) {
      expect(() => sshEngine(bad), bad).toThrow(/write it as ssh:\/\/\[user@\]host\[:port\]/)
    }
    // Refused as it is set, not at its first use.
    const setting = CONFIG_KEYS['docker.host'].type
    expect(() => setting.parse('ssh://box/var/run/docker.sock')).toThrow(/write it as ssh:\/\//)
    expect(setting.parse('ssh://me@box')).toBe('ssh://me@box')
  })
})

describe("an ssh:// engine's host key", () => {
  const made: string[] = []
  afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))))
  const home = async (knownHosts?: string) => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-kh-'))
    made.push(dir)
    await mkdir(join(dir, '.ssh'))
    if (knownHosts !== undefined) await writeFile(join(dir, '.ssh', 'known_hosts'), knownHosts)
    return dir
  }
  const engine = sshEngine('ssh://me@box:2222')!

  it("is ssh_hosts' pin for the same host and port, whatever the user's known_hosts says", async () => {
    const hosts = { other: { host: 'box', host_key: OTHER }, box: { host: 'box', port: 2222, user: 'someone', host_key: KEY } }
    expect(await engineKey(engine, hosts, { HOME: await home(`[box]:2222 ${OTHER}\n`) })).toBe(KEY)
  })

  it("is else the user's known_hosts's, hashed entries too", async () => {
    const dir = await home(`[box]:2222 ${KEY}\n`)
    execFileSync('ssh-keygen', ['-H', '-f', join(dir, '.ssh', 'known_hosts')], { stdio: 'ignore' })
    expect(await engineKey(engine, {}, { HOME: dir })).toBe(KEY)
  })

  it('is never taken on first use: none pinned and none known is a refusal that says where to put one', async () => {
    const dir = await home(`box ${KEY}\n`)
    await expect(engineKey(engine, { box: { host: 'box', host_key: KEY } }, { HOME: dir })).rejects.toThrow(
      `svc has no host key for [box]:2222 (docker.host) and never trusts a host on first use: pin it in ssh_hosts (svc hosts add <name> box --port 2222 --scan`,
    )
    await expect(engineKey(engine, {}, { HOME: await home() })).rejects.toThrow(/or add it to .*\/\.ssh\/known_hosts/)
  })
})
