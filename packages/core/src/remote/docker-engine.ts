import { execFile, spawn, type ChildProcess } from 'node:child_process'
import type { SshPlace } from '../sessions/record.js'
import { HOST, USER } from './ssh-host.js'

/** One docker command's outcome. */
export interface DockerRun {
  /** Its exit code; null when it did not exit by itself (a timeout) or could not start. */
  code: number | null
  stdout: string
  stderr: string
}

export interface DockerEngineOptions {
  /** `docker.host`, read at each run: DOCKER_HOST for every docker command ("" = docker's default). */
  host(): string
  /** The DOCKER_HOST a command for docker.host `host` runs with (an ssh:// engine's socket forwarded here); throws why it cannot. Without it, docker's own. */
  route?(host: string): Promise<string>
  /** The environment docker commands run with: the daemon's, filtered as a pane's is. */
  env(): NodeJS.ProcessEnv
  /** How long one docker command may take. */
  timeoutMs: number
}

/** How long the engine's answer (or silence) is believed before it is asked again. */
const STATUS_TTL_MS = 5_000

/** The last line of a docker command's stderr: its message, without the usage text. */
export function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).at(-1)?.trim() ?? ''
}

/**
 * The Docker Engine as svc drives it: the `docker` CLI, with DOCKER_HOST from
 * `docker.host`, never a secret on its argv (values travel in its environment).
 */
export class DockerEngine {
  private status: { host: string; at: number; why: Promise<string | undefined> } | undefined

  constructor(private readonly options: DockerEngineOptions) {}

  /** The environment `docker` runs with: the daemon's, `env` added, DOCKER_HOST routed; throws why there is no way to the engine. */
  private async environment(env: Record<string, string>): Promise<NodeJS.ProcessEnv> {
    let host = this.options.host().trim()
    if (this.options.route) host = await this.options.route(host)
    return { ...this.options.env(), ...env, ...(host ? { DOCKER_HOST: host } : {}) }
  }

  /** Runs `docker <args>`; `env` adds to its environment (the values of `-e NAME`). */
  async run(args: string[], { env = {}, timeoutMs = this.options.timeoutMs }: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<DockerRun> {
    let full: NodeJS.ProcessEnv
    try {
      full = await this.environment(env)
    } catch (error) {
      return { code: null, stdout: '', stderr: (error as Error).message }
    }
    return new Promise((resolve) => {
      execFile('docker', args, { env: full, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr })
        const failed = error as NodeJS.ErrnoException & { code?: number | string; killed?: boolean }
        if (failed.code === 'ENOENT') return resolve({ code: null, stdout: '', stderr: 'the docker command is not installed on this machine (install Docker Engine, e.g. Debian\'s docker.io)' })
        if (failed.killed) return resolve({ code: null, stdout, stderr: `docker ${args[0]} gave no answer within ${timeoutMs / 1000} s` })
        resolve({ code: typeof failed.code === 'number' ? failed.code : null, stdout, stderr: stderr || failed.message })
      })
    })
  }

  /** `docker <args>` as a process of its own, its stdio piped, without a timeout (a stream through the engine). */
  async spawn(args: string[]): Promise<ChildProcess> {
    return spawn('docker', args, { env: await this.environment({}), stdio: ['pipe', 'pipe', 'ignore'] })
  }

  /** Why the engine cannot run containers now (worded to show), or undefined when it answers; believed for a few seconds. */
  unavailable(): Promise<string | undefined> {
    const host = this.options.host().trim()
    const now = Date.now()
    if (this.status?.host === host && now - this.status.at < STATUS_TTL_MS) return this.status.why
    const why = this.answer(host)
    this.status = { host, at: now, why }
    return why
  }

  private async answer(host: string): Promise<string | undefined> {
    try {
      await this.options.route?.(host)
    } catch (error) {
      // The way to an engine on another machine, not the engine: worded as it is.
      return `the Docker Engine at ${host} cannot be reached: ${(error as Error).message}`
    }
    const { code, stdout, stderr } = await this.run(['version', '--format', '{{.Server.Version}}'], { timeoutMs: 10_000 })
    if (code === 0 && stdout.trim()) return undefined
    const where = host || 'its default socket'
    return `the Docker Engine does not answer at ${where} (${lastLine(stderr) || 'no server version'}); start dockerd, or set docker.host`
  }

  /** A container's labels. */
  async labels(container: string): Promise<Record<string, string>> {
    const { code, stdout } = await this.run(['inspect', '--format', '{{json .Config.Labels}}', container])
    return code === 0 ? ((JSON.parse(stdout) as Record<string, string> | null) ?? {}) : {}
  }

  /** The names of the containers carrying every given label (`name=value`), running or not. */
  async labelled(...labels: string[]): Promise<string[]> {
    const filters = labels.flatMap((label) => ['--filter', `label=${label}`])
    const { code, stdout, stderr } = await this.run(['ps', '-a', '--format', '{{.Names}}', ...filters])
    if (code !== 0) throw new Error(`docker ps failed: ${lastLine(stderr)}`)
    return stdout.split('\n').map((line) => line.trim()).filter(Boolean)
  }
}

/**
 * docker.host `tcp://` to another machine (not this one's loopback): the ports it
 * publishes are on that machine's 127.0.0.1, so its agent servers are reached through
 * the engine itself (ExecPipes), not a published port.
 */
export function pipedEngine(host: string): boolean {
  const value = host.trim()
  return value.startsWith('tcp://') && !/^tcp:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(value)
}

/** Whether docker.host is an engine on another machine (ssh://, or a tcp:// one elsewhere), where a path here is not. */
export function elsewhere(host: string): boolean {
  return host.trim().startsWith('ssh://') || pipedEngine(host)
}

/** An engine's machine as ssh reaches it; `name` names its master's directory. */
export type SshEngine = SshPlace & { name: string }

/**
 * docker.host `ssh://[user@]host[:port]`: where ssh reaches the engine's machine;
 * undefined for any other docker.host. Throws a message fit to show for a malformed one.
 */
export function sshEngine(host: string): SshEngine | undefined {
  const value = host.trim()
  if (!value.startsWith('ssh://')) return undefined
  const bad = new Error(`docker.host ${value} is not an engine svc can reach over ssh: write it as ssh://[user@]host[:port], as DOCKER_HOST takes it`)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw bad
  }
  const name = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const user = decodeURIComponent(url.username)
  if (!HOST.test(name) || (user && !USER.test(user)) || url.password || url.pathname.replace(/^\/$/, '') || url.search) throw bad
  const port = url.port ? Number(url.port) : undefined
  const place = { host: name, ...(port ? { port } : {}), ...(user ? { user } : {}), remote_port: 0 }
  return { ...place, name: `${user ? `${user}@` : ''}${name}${port ? `-${port}` : ''}` }
}
