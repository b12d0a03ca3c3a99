import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process'
import { randomInt } from 'node:crypto'
import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loopbackPort, writeSshdConfig } from '../fixtures/sshd-config.mjs'
import { CLI_MAIN, type TestDaemon, type tempHomes } from './harness.js'
import { HOOK_DELETE, makeHookRepo } from './hook-kit.js'
import { makePlace, netnsAvailable, type Place } from './netns.js'
import { startSessionDaemon } from './sessions-kit.js'
import { alive, waitFor } from './wait.js'

/** The test provision_cmd: prints the test sshd as the host it made. */
export const HOOK_PROVISION = fileURLToPath(new URL('../fixtures/hooks/provision.mjs', import.meta.url))

/** A real sshd of the test's own, in the place given, and the keys around it. */
export interface Sshd {
  place: Place
  port: number
  /** A port on the same address where nothing listens. */
  deadPort: number
  user: string
  /** Its public host key file; `wrongKey` is another key's. */
  hostKey: string
  wrongKey: string
  /** The private key of a client it lets in as `user`. */
  clientKey: string
  /** HOME of the sessions it starts (so a provisioned workspace lands in the test dir). */
  remoteHome: string
  /** The ports of `morePorts`, in order: sessions there have their own PATH. */
  morePorts: number[]
  process: ChildProcess
  stderr(): string
}

function keygen(file: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'svc-test', '-f', file])
}

/**
 * Starts `sshd -D -e -f <config>` in the place, with a host key and a client key made
 * here, the client's key authorized for the current user by an AuthorizedKeysFile in
 * `dir`, and HOME and PATH of its sessions set (the remote is this machine), with `env`
 * besides; on each of `morePaths` a port of its own whose sessions have that PATH.
 */
export async function startSshd(place: Place, dir: string, { path, morePaths = [], env = {} }: { path?: string; morePaths?: string[]; env?: Record<string, string> } = {}): Promise<Sshd> {
  const hostKey = join(dir, 'hk')
  const clientKey = join(dir, 'ck')
  const wrongKey = join(dir, 'wk')
  for (const file of [hostKey, clientKey, wrongKey]) keygen(file)
  const remoteHome = join(dir, 'rh')
  await mkdir(remoteHome)
  // A fresh namespace has no listener at all; on loopback the ports are asked for.
  const [port, deadPort] = netnsAvailable() ? [randomInt(20_000, 30_000), randomInt(30_000, 40_000)] : [await loopbackPort(), await loopbackPort()]
  const morePorts = await Promise.all(morePaths.map(async (more, index) => ({ port: netnsAvailable() ? port + 1 + index : await loopbackPort(), path: more })))
  const config = await writeSshdConfig({ dir, address: place.address, port, hostKey, clientKey, remoteHome, ...(path ? { path } : {}), morePorts, env })
  const child = place.spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}: ${stderr}`)
    return stderr.includes('Server listening') || undefined
  })
  return { place, port, deadPort, user: userInfo().username, hostKey: `${hostKey}.pub`, wrongKey: `${wrongKey}.pub`, clientKey, remoteHome, morePorts: morePorts.map((more) => more.port), process: child, stderr: () => stderr }
}

/** A home daemon whose repository's provision_cmd makes "hosts" out of the test's sshd. */
export interface ProvisionWorld {
  dir: string
  repo: string
  origin: string
  /** Where the hooks write `calls.log`. */
  state: string
  sshd: Sshd
  /** The `remote_svc_command` the daemon is given: a wrapper that runs the built CLI. */
  svc: string
  daemon: TestDaemon
}

/** The repository's .svc/config.json naming the test provision_cmd and delete_cmd. */
export function provisionConfig(state: string, sshd: Sshd): Record<string, unknown> {
  const host = `--host ${sshd.place.address} --port ${sshd.port} --dead-port ${sshd.deadPort} --user ${sshd.user}`
  return {
    remote_hooks: {
      provision_cmd: `node ${HOOK_PROVISION} --state ${state} ${host} --host-key ${sshd.hostKey} --wrong-key ${sshd.wrongKey}`,
      delete_cmd: `node ${HOOK_DELETE} --state ${state}`,
    },
  }
}

/** The daemon's global settings that point ssh at the test's client key and svc at the built CLI. */
export function sshSettings(world: Pick<ProvisionWorld, 'sshd' | 'svc'>): Record<string, string> {
  return { remote_ssh_command: `ssh -i ${world.sshd.clientKey} -F /dev/null`, remote_svc_command: world.svc }
}

/** Makes the world: origin, repository (config trusted), sshd in a place, the home daemon. */
export async function openProvisionWorld(homes: ReturnType<typeof tempHomes>, { env = {} }: { env?: Record<string, string> } = {}): Promise<ProvisionWorld> {
  const { dir, repo, origin, state } = await makeHookRepo(homes)
  const sshd = await startSshd(await makePlace(), dir)
  const svc = join(dir, 'svc')
  await writeFile(svc, `#!/bin/sh\nexec ${process.execPath} ${CLI_MAIN} "$@"\n`)
  chmodSync(svc, 0o755)
  await mkdir(join(repo, '.svc'))
  await writeFile(join(repo, '.svc', 'config.json'), JSON.stringify(provisionConfig(state, sshd)))
  const daemon = await startSessionDaemon({ home: join(dir, 'svc-home'), env, settings: sshSettings({ sshd, svc }) })
  await daemon.client.call('TrustProject', { path: repo })
  return { dir, repo, origin, state, sshd, svc, daemon }
}

/** The session's ssh directory on the home daemon, and its ControlMaster's socket there. */
export function sshDirOf(daemon: TestDaemon, id: string): { dir: string; control: string } {
  const dir = join(daemon.home, 'remote-ssh', id)
  return { dir, control: join(dir, 'c') }
}

/** The pid of the session's ControlMaster (`ssh -O check`), or undefined when none answers. */
export function masterPid(daemon: TestDaemon, id: string): number | undefined {
  const check = spawnSync('ssh', ['-F', '/dev/null', '-o', `ControlPath=${sshDirOf(daemon, id).control}`, '-O', 'check', 'x'], { encoding: 'utf8' })
  return check.status === 0 ? Number(/pid=(\d+)/.exec(check.stderr)?.[1]) || undefined : undefined
}

/** Every agent server svc started on the "host" (pid files in its workspace homes). */
export function remoteAgentServers(sshd: Sshd): number[] {
  const base = join(sshd.remoteHome, 'svc-workspaces')
  if (!existsSync(base)) return []
  return readdirSync(base)
    .filter((name) => name.endsWith('.home') && existsSync(join(base, name, 'agent-server.pid')))
    .map((name) => Number(readFileSync(join(base, name, 'agent-server.pid'), 'utf8')))
}

/** The command lines of every process on this machine (NUL-separated arguments), to look for a secret in. */
export function commandLines(): string {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1')
      } catch {
        return ''
      }
    })
    .join('\n')
}

const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir) : [])

/**
 * What provisioned sessions leave: workspaces and agent-server homes on the "host", ssh
 * directories and token files in the home, and ssh processes svc runs for it (masters included).
 */
export function leftovers(world: Pick<ProvisionWorld, 'daemon' | 'sshd'>): { workspaces: string[]; sshDirs: string[]; tokenFiles: string[]; sshProcesses: string[] } {
  const sshDir = join(world.daemon.home, 'remote-ssh')
  return {
    workspaces: entries(join(world.sshd.remoteHome, 'svc-workspaces')),
    sshDirs: entries(sshDir),
    tokenFiles: entries(join(world.daemon.home, 'remote-tokens')),
    sshProcesses: commandLines()
      .split('\n')
      .filter((line) => line.startsWith('ssh\0') && line.includes(sshDir)),
  }
}

/** `leftovers` once every provisioned session is gone. */
export const NOTHING_LEFT = { workspaces: [], sshDirs: [], tokenFiles: [], sshProcesses: [] }

/** Kills what is left: masters of the daemon's sessions, agent servers and their tmux servers on the "host", sshd and its place. */
export async function closeProvisionWorld(world: ProvisionWorld | undefined): Promise<void> {
  if (!world) return
  await world.daemon.stop()
  const sshDirs = join(world.daemon.home, 'remote-ssh')
  for (const id of existsSync(sshDirs) ? readdirSync(sshDirs) : []) {
    const pid = masterPid(world.daemon, id)
    if (pid) process.kill(pid, 'SIGKILL')
  }
  for (const pid of remoteAgentServers(world.sshd)) {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      if (alive(pid)) process.kill(pid, 'SIGKILL')
    }
  }
  const base = join(world.sshd.remoteHome, 'svc-workspaces')
  for (const name of existsSync(base) ? readdirSync(base).filter((entry) => entry.endsWith('.home')) : []) {
    try {
      execFileSync('tmux', ['-S', join(base, name, 'tmux.sock'), 'kill-server'], { stdio: 'ignore' })
    } catch {
      // No tmux server there.
    }
  }
  world.sshd.process.kill('SIGKILL')
  await world.sshd.place.remove()
}
