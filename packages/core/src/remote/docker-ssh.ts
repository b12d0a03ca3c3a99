import { execFile } from 'node:child_process'
import { connect } from 'node:net'
import { rm } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Config } from '../config/config.js'
import type { SshHosts } from '../config/ssh-hosts.js'
import { sshEngine, type SshEngine } from './docker-engine.js'
import { knownHostsLine, publicKeyOf } from './ssh-host.js'
import { sshFailure } from './ssh-links.js'
import type { HostMasters } from './ssh-masters.js'
import { controlPathOf, type SshConnection } from './ssh.js'

/** The master's user that the engine's own docker commands are: it stays until the daemon stops. */
const ENGINE_USER = 'engine'

/** The socket an engine's login names when its DOCKER_HOST is unset: Docker's own default. */
const DEFAULT_SOCKET = 'unix:///var/run/docker.sock'

/**
 * The host key svc trusts for an engine's machine, never one ssh is first shown: the
 * host_key of an ssh_hosts entry for the same host and port, else the user's own
 * ~/.ssh/known_hosts's (as `docker -H ssh://` itself trusts). Throws a refusal naming both.
 */
export async function engineKey(engine: SshEngine, hosts: SshHosts, env: NodeJS.ProcessEnv): Promise<string> {
  const port = (entry: { port?: number }) => entry.port ?? 22
  const pinned = Object.values(hosts).find((entry) => entry.host === engine.host && port(entry) === port(engine))
  if (pinned) return pinned.host_key
  const file = join(env.HOME || homedir(), '.ssh', 'known_hosts')
  const [name = engine.host] = knownHostsLine({ ...engine, hostKey: '' }).split(' ')
  // ssh-keygen reads hashed entries too; it exits 1 when the file has none (or is missing).
  const found = await promisify(execFile)('ssh-keygen', ['-F', name, '-f', file]).then(({ stdout }) => stdout, () => '')
  const key = found.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => publicKeyOf(line.split(' ').slice(1).join(' '))).find(Boolean)
  if (key) return key
  throw new Error(
    `svc has no host key for ${name} (docker.host) and never trusts a host on first use: pin it in ssh_hosts ` +
      `(svc hosts add <name> ${engine.host}${engine.port ? ` --port ${engine.port}` : ''} --scan shows its fingerprint and asks), ` +
      `or add it to ${file} (ssh-keyscan, then check the fingerprint with the host's owner)`,
  )
}

/** Whether something accepts connections on the Unix socket. */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path, () => {
      socket.end()
      resolve(true)
    })
    socket.on('error', () => resolve(false))
    socket.setTimeout(2_000, () => {
      socket.destroy()
      resolve(false)
    })
  })
}

export interface EngineTunnelsOptions {
  /** The engines' shared masters, one per engine (`$SERVICE_HOME/docker-ssh/<name>`). */
  masters: HostMasters
  /** ssh_hosts, read at each new master. */
  config: Pick<Config, 'get'>
  /** HOME, whose ~/.ssh/known_hosts is trusted for engines ssh_hosts does not pin. */
  env: NodeJS.ProcessEnv
}

/**
 * The way to a Docker Engine on another machine (docker.host ssh://): one ControlMaster
 * per engine, its key trusted as engineKey says; the docker commands go through a local
 * socket it forwards to the engine's socket there, and each session's agent server
 * through a forward of its own (SshLinks.watch) on the same master.
 */
export class EngineTunnels {
  /** A socket forward being made, per engine: docker commands asking at once share it. */
  private readonly opening = new Map<string, Promise<string>>()

  constructor(private readonly options: EngineTunnelsOptions) {}

  /** A user's share of the engine's master: its known_hosts written when the master is new; throws a refusal when no key is trusted. */
  async attach(id: string, engine: SshEngine): Promise<SshConnection> {
    const { masters, config, env } = this.options
    if (masters.has(engine.name)) return masters.resume(id, engine)
    return masters.attach(id, { ...engine, hostKey: await engineKey(engine, config.get('ssh_hosts'), env) }, engine)
  }

  /** The DOCKER_HOST a docker command for docker.host `host` runs with: an ssh:// engine's forwarded socket here. Throws why it cannot. */
  async dockerHost(host: string): Promise<string> {
    const engine = sshEngine(host)
    if (!engine) return host
    let opening = this.opening.get(engine.name)
    if (!opening) {
      opening = this.socket(engine).finally(() => this.opening.delete(engine.name))
      this.opening.set(engine.name, opening)
    }
    return `unix://${await opening}`
  }

  /**
   * The engine's socket forwarded here, unless its forward answers: the master opened
   * first when it does not answer. On failure the engine lets go of its master: it ends,
   * and its directory goes, unless a session still uses it.
   */
  private async socket(engine: SshEngine): Promise<string> {
    const conn = await this.attach(ENGINE_USER, engine)
    const local = controlPathOf(conn.dir, 'd')
    if (await listening(local)) return local
    try {
      return await this.forward(conn, local)
    } catch (error) {
      await this.options.masters.detach(ENGINE_USER, conn, undefined, true)
      throw error
    }
  }

  private async forward(conn: SshConnection, local: string): Promise<string> {
    const why = await conn.open()
    if (why !== undefined) throw new Error(sshFailure(why, conn.name, 'docker.host'))
    // The login's environment names its engine, as for `docker -H ssh://` (which runs docker there).
    const named = await conn.exec(`printf '%s' "\${DOCKER_HOST:-${DEFAULT_SOCKET}}"`)
    const remote = named.stdout.trim()
    if (named.code !== 0 || !remote.startsWith('unix://')) {
      throw new Error(`the engine's machine ${conn.name} names no Unix socket for its engine (DOCKER_HOST there: ${remote || named.stderrTail.trim() || 'unreadable'}); svc forwards only a unix:// one`)
    }
    // A socket left by a master that ended would refuse the forward.
    await rm(local, { force: true })
    const failed = await conn.forwardSocket(local, remote.slice('unix://'.length))
    if (failed !== undefined) throw new Error(`could not forward the engine's socket from ${conn.name}: ${failed}`)
    return local
  }

  /** At start: engine directories no master in use has (a daemon that died may have left one running). */
  async sweep(): Promise<void> {
    const { masters } = this.options
    for (const name of await masters.names()) await masters.forget(name)
  }
}
