import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, symlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { SVC_VERSION } from '@svc/protocol'
import { packSvc } from '../../../scripts/pack-svc.mjs'
import type { TestDaemon, tempHomes } from './harness.js'
import { makeHookRepo } from './hook-kit.js'
import { makePlace } from './netns.js'
import { startSessionDaemon } from './sessions-kit.js'
import { closeProvisionWorld, commandLines, startSshd, type Sshd } from './ssh-kit.js'

/**
 * A home daemon with ssh_hosts on the test's own sshd: `box` (its sessions' PATH has
 * node, git and tmux, and no svc), `notmux` (a PATH with node and git only), `nowhere` (a
 * port where nothing listens) and `forged` (another key pinned). svc installs itself from
 * the tarball packed for the run (SVC_ARTIFACT).
 */
export interface SshHostWorld {
  dir: string
  repo: string
  origin: string
  sshd: Sshd
  /** The portable svc the daemon installs. */
  tarball: string
  daemon: TestDaemon
  /** Where the daemon installs svc on the "host" (its HOME is sshd.remoteHome). */
  installed: string
  /** Stops the home daemon (SIGTERM, or `signal`) and starts it again on the same home (`daemon` is then the new one). */
  restart(signal?: NodeJS.Signals): Promise<void>
}

/** `<type> <base64>` of a public key file. */
export function keyLine(file: string): string {
  return readFileSync(file, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ')
}

/** A PATH directory with only what a host without tmux has: a shell, node and git. */
async function withoutTmux(dir: string): Promise<string> {
  const bin = join(dir, 'no-tmux-bin')
  await mkdir(bin)
  for (const [name, target] of [['sh', '/bin/sh'], ['node', process.execPath], ['git', '/usr/bin/git'], ['cat', '/bin/cat']] as const) await symlink(target, join(bin, name))
  return bin
}

/** The ssh_hosts of the world (see SshHostWorld). */
export function sshHostsOf(sshd: Sshd): Record<string, unknown> {
  const at = (port: number, key = sshd.hostKey) => ({ host: sshd.place.address, port, user: sshd.user, host_key: keyLine(key) })
  return { box: at(sshd.port), notmux: at(sshd.morePorts[0] as number), nowhere: at(sshd.deadPort), forged: at(sshd.port, sshd.wrongKey) }
}

export async function openSshHostWorld(homes: ReturnType<typeof tempHomes>, { env = {} }: { env?: Record<string, string> } = {}): Promise<SshHostWorld> {
  const { dir, repo, origin } = await makeHookRepo(homes)
  const { path: tarball } = await packSvc({ outDir: join(dir, 'pack') })
  // The "host" is this machine: its sessions' PATH is node's and the system's, never a checkout's svc.
  const sshd = await startSshd(await makePlace(), dir, { path: `${dirname(process.execPath)}:/usr/bin:/bin`, morePaths: [await withoutTmux(dir)] })
  const start = () =>
    startSessionDaemon({
      home: join(dir, 'svc-home'),
      env: { ...env, SVC_ARTIFACT: tarball },
      settings: { remote_ssh_command: `ssh -i ${sshd.clientKey} -F /dev/null`, ssh_hosts: sshHostsOf(sshd) },
    })
  const world: SshHostWorld = { dir, repo, origin, sshd, tarball, daemon: await start(), installed: join(sshd.remoteHome, '.svc-agent', 'versions', SVC_VERSION), restart: async (signal) => {
    await world.daemon.stop(signal)
    world.daemon = await start()
  } }
  return world
}

const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir) : [])

/** What ssh sessions leave: workspaces on the "host", host directories and token files in the home, ssh processes of the home's masters. */
export function hostLeftovers(world: SshHostWorld): { workspaces: string[]; hostDirs: string[]; tokenFiles: string[]; masters: string[] } {
  const hostsDir = join(world.daemon.home, 'ssh-hosts')
  return {
    workspaces: entries(join(world.sshd.remoteHome, 'svc-workspaces')),
    hostDirs: entries(hostsDir),
    tokenFiles: entries(join(world.daemon.home, 'remote-tokens')),
    masters: commandLines()
      .split('\n')
      .filter((line) => line.startsWith('ssh\0') && line.includes(hostsDir) && line.includes('ControlMaster=yes')),
  }
}

/** Kills what is left: the home's masters (provision's and hosts'), agent servers and tmux servers on the "host", sshd and its place. */
export async function closeSshHostWorld(world: SshHostWorld | undefined): Promise<void> {
  if (!world) return
  await world.daemon.stop()
  const hostsDir = join(world.daemon.home, 'ssh-hosts')
  for (const name of entries(hostsDir)) {
    spawnSync('ssh', ['-F', '/dev/null', '-o', `ControlPath=${join(hostsDir, name, 'c')}`, '-O', 'exit', 'x'], { stdio: 'ignore' })
  }
  await closeProvisionWorld({ ...world, state: '', svc: '' })
}
