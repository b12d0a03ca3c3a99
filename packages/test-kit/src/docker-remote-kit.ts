import type { ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { startPrivateEngine, type PrivateEngine } from './docker-engine-kit.js'
import { buildTestImage, docker, dockerSettings, ensureArtifact } from './docker-kit.js'
import { tempHomes, type TestDaemon } from './harness.js'
import { makeHookRepo } from './hook-kit.js'
import { makeNetns, type Netns } from './netns.js'
import { git, startSessionDaemon } from './sessions-kit.js'
import { startSshd, type Sshd } from './ssh-kit.js'
import { keyLine } from './ssh-host-kit.js'
import { waitFor } from './wait.js'

/**
 * A Docker Engine "on another machine": dockerd and sshd in one network namespace, the
 * sshd's logins given that engine as their DOCKER_HOST; origin served there by git
 * daemon (a path here is not on that machine). The home daemon's docker.host names the
 * engine as ssh://; ssh_hosts does not pin its key until `pin()`. Over `tcp`: no sshd,
 * dockerd listens on the namespace's address and docker.host names it as tcp://.
 */
export interface RemoteDockerWorld {
  dir: string
  repo: string
  /** The bare origin's directory (git daemon serves it as `originUrl`). */
  origin: string
  originUrl: string
  image: string
  netns: Netns
  /** The engine's own socket (this process's DOCKER_HOST, so the tests' docker commands see it). */
  engine: PrivateEngine
  /** ssh:// worlds only. */
  sshd: Sshd
  /** The docker.host the daemon is given: ssh://user@address:port, or tcp://address:port. */
  dockerHost: string
  daemon: TestDaemon
  /** ssh:// worlds only: ssh_hosts pins the engine machine's key, or the public key in `keyFile` (a config write, as a user would). */
  pin(keyFile?: string): Promise<void>
  /** Stops the home daemon (SIGTERM, or `signal`) and starts it again on the same home (`daemon` is then the new one). */
  restart(signal?: NodeJS.Signals): Promise<void>
}

/** git daemon in the namespace, serving `base` (pushes too) on its address; resolves once it listens. */
async function serveGit(netns: Netns, base: string): Promise<ChildProcess> {
  const child = netns.spawn('git', ['daemon', '--reuseaddr', '--export-all', '--enable=receive-pack', `--base-path=${base}`, `--listen=${netns.address}`, base], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`git daemon exited with ${child.exitCode}: ${stderr}`)
    return (await accepts(GIT_PORT, netns.address)) || undefined
  })
  return child
}

/** git daemon's own port. */
const GIT_PORT = 9418

export function useRemoteDockerWorld({ env = {}, over = 'ssh' }: { env?: Record<string, string>; over?: 'ssh' | 'tcp' } = {}): RemoteDockerWorld {
  const homes = tempHomes()
  const world = {} as RemoteDockerWorld
  beforeAll(async () => {
    world.netns = await makeNetns()
    world.engine = await startPrivateEngine({ netns: world.netns, tcp: over === 'tcp' })
    // This file's docker commands (and the image build) go to it.
    process.env.DOCKER_HOST = world.engine.host
    world.image = `svc-test:${process.pid}-${Date.now().toString(36)}`
    const [artifact] = await Promise.all([ensureArtifact(), buildTestImage(world.image)])
    const { dir, repo, origin } = await makeHookRepo(homes)
    Object.assign(world, { dir, repo, origin })
    await serveGit(world.netns, dir)
    world.originUrl = `git://${world.netns.address}/o.git`
    git(repo, 'remote', 'set-url', 'origin', world.originUrl)
    world.dockerHost = over === 'tcp' ? world.engine.tcp! : await sshWorld(world, dir)
    const ssh = over === 'ssh' ? { remote_ssh_command: `ssh -i ${world.sshd.clientKey} -F /dev/null` } : {}
    const settings: Record<string, unknown> = { ...dockerSettings(world.image, world.dockerHost), ...ssh }
    const options = { home: join(dir, 'svc'), env: { SVC_ARTIFACT: artifact, HOME: dir, ...env }, settings }
    world.daemon = await startSessionDaemon(options)
    world.restart = async (signal) => {
      await world.daemon.stop(signal)
      world.daemon = await startSessionDaemon(options)
    }
    world.pin = async (keyFile = world.sshd.hostKey) => {
      const { user, port } = world.sshd
      const entry = { host: world.netns.address, port, user, host_key: keyLine(keyFile) }
      await world.daemon.client.call('SetConfigValue', { key: 'ssh_hosts.engine', value: JSON.stringify(entry) })
      // A restart writes the settings again: with the pin.
      settings.ssh_hosts = { engine: entry }
    }
  }, 300_000)
  afterAll(async () => {
    if (world.daemon) await world.daemon.stop()
    // Its containers and image go with its data root; sshd and git daemon with the namespace.
    await world.engine?.close()
    await world.netns?.remove()
    await homes.release()
  }, 120_000)
  return world
}

/** An ssh:// world's sshd (its logins' DOCKER_HOST the engine); the docker.host that reaches the engine through it. */
async function sshWorld(world: RemoteDockerWorld, dir: string): Promise<string> {
  world.sshd = await startSshd(world.netns, dir, { env: { DOCKER_HOST: world.engine.host } })
  return `ssh://${world.sshd.user}@${world.netns.address}:${world.sshd.port}`
}

/** Whether something accepts a connection from here (the root namespace) on `host`:`port`. */
export function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host, () => {
      socket.end()
      resolve(true)
    }).on('error', () => resolve(false))
  })
}

/** A create while origin is a path here, which is not on the engine's machine: refused, saying what to set, nothing of it left. */
export async function refusesLocalOrigin(world: RemoteDockerWorld): Promise<void> {
  git(world.repo, 'remote', 'set-url', 'origin', world.origin)
  const local = await world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title: 'local-origin', backend: 'docker', prompt: 'start' })
  git(world.repo, 'remote', 'set-url', 'origin', world.originUrl)
  expect(local.json.error.message).toBe(
    `could not start docker session "local-origin": the repository's origin ${world.origin} is a path on this machine, which the engine at ${world.dockerHost} (docker.host) cannot reach: ` +
      'set the origin remote to a URL that machine reaches (git remote set-url origin <https:// or ssh:// URL>), or use an engine on this machine; nothing of it is left',
  )
  expect(docker('ps', '-a', '--format', '{{.Names}}').trim()).toBe('')
  expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
}

/** A prompt the session's agent receives, once the session answers (its way there may still be coming back). */
export async function deliveredThere(world: RemoteDockerWorld, id: string, prompt: string): Promise<void> {
  await waitFor(async () => (await world.daemon.post('/v1/SendPrompt', { id, prompt })).status === 200 || undefined, 30_000)
  await waitFor(async () => (await world.daemon.client.call('Preview', { id })).text.includes(`received: ${prompt}`), 20_000)
}
