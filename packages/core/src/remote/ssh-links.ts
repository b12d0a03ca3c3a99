import { mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { freePort } from '../sessions/runtime.js'
import type { SshPlace } from '../sessions/record.js'
import { parseEndpoint, redact, type Endpoint } from './endpoint.js'
import { KEPT_EXIT, NOTHING_MADE_EXIT, startScript, stopScript, WORKSPACE_TAKEN_EXIT, type StartScript, type StopScript } from './remote-scripts.js'
import { knownHostsLine, type ProvisionedHost } from './ssh-host.js'
import { SshConnection, type SshRunner } from './ssh.js'

export interface SshTimings {
  /** How often a live master is checked (`ssh -O check`). */
  checkMs: number
  /** The first wait before reopening a dropped master again, doubled per failed attempt... */
  retryMs: number
  /** ...up to this. */
  retryMaxMs: number
}

export const SSH_TIMINGS: SshTimings = { checkMs: 5_000, retryMs: 500, retryMaxMs: 30_000 }

/** Test hook: SVC_SSH_CHECK_MS checks masters more often than every 5 s. */
export function sshTimings(env: NodeJS.ProcessEnv): SshTimings {
  const ms = Number(env.SVC_SSH_CHECK_MS)
  return Number.isInteger(ms) && ms > 0 ? { ...SSH_TIMINGS, checkMs: ms } : SSH_TIMINGS
}

/** What the watch tells of a session's ssh connection. */
export interface SshListener {
  /** Its master dropped, or could not be reopened: the remote is unreachable meanwhile. */
  down(id: string): void
  /** Its master is (re)opened and forwards `endpoint` (a local port, perhaps a new one) to the agent server. */
  up(id: string, endpoint: string): void
}

export interface SshLinksOptions {
  /** `$SERVICE_HOME/remote-ssh`: one 0700 directory per session. */
  dir: string
  runner: SshRunner
  log: Logger
  timings: SshTimings
  listener: SshListener
}

/** A provisioned session's place on its host, as the record keeps it. */
export interface Provisioned {
  endpoint: Endpoint
  place: SshPlace
}

const FORWARD_TRIES = 3

/** ssh's own exit when it could not reach the host (a script's exits are its own). */
const SSH_FAILED_EXIT = 255

/**
 * How a host's teardown went: everything removed; or the workspace kept because work in
 * it could not reach origin; or the host did not answer, nothing done there. Only a
 * removal (or a host that is gone, `force`) removes the session's ssh directory.
 */
export type Released = { removed: true } | { kept: string } | { unreachable: string }

/** Whether a release let the host go: it removed everything, or it did not answer and is `force`d gone. */
export function letGo(released: Released, force: boolean): boolean {
  return 'removed' in released || ('unreachable' in released && force)
}

/** What a release does on the host: the stop script's work, and whether a host that does not answer counts as gone. */
export type Release = Omit<StopScript, 'slug'> & { force: boolean }

/** ssh's account of a failed connect, worded to say what to fix. */
export function sshFailure(why: string, name: string): string {
  const said = why.trim().split('\n').filter(Boolean).at(-1) ?? why
  if (/Host key verification failed|host identification has changed|has changed and you have requested strict checking/i.test(why)) {
    return `the host key ${name} presented does not match the host_key provision_cmd printed (ssh: Host key verification failed); make provision_cmd print the public host key of the host it made`
  }
  if (/Connection refused|timed out|No route to host|Network is unreachable|Could not resolve hostname|Name or service not known|Connection closed by remote host/i.test(why)) {
    return `cannot reach ${name} over ssh (ssh: ${said}); check the host and port provision_cmd printed, and that sshd runs there`
  }
  if (/Permission denied|Too many authentication failures/i.test(why)) {
    return `${name} refused svc's ssh login (ssh: ${said}); set the global remote_ssh_command to a client with a key that host accepts, e.g. "ssh -i ~/.ssh/svc_ed25519"`
  }
  return `ssh to ${name} failed: ${why.trim()}`
}

/** One session's watched connection. */
class Link {
  state: 'up' | 'down' | 'unknown' = 'unknown'
  failures = 0
  closed = false
  timer: NodeJS.Timeout | undefined
  /** The check or reopen under way: a release waits for it. */
  busy: Promise<void> = Promise.resolve()

  constructor(
    readonly id: string,
    readonly slug: string,
    readonly conn: SshConnection,
    public localPort: number,
  ) {}
}

/**
 * The ssh side of provisioned hook sessions: a pinned known_hosts and a ControlMaster
 * per session, the agent server started on the host through it, a local port forwarded
 * to it; then the master watched, reopened with backoff when it drops and the forward
 * put back (on the same local port when it is free).
 */
export class SshLinks {
  private readonly links = new Map<string, Link>()

  constructor(private readonly options: SshLinksOptions) {}

  private connection(id: string, place: SshPlace): SshConnection {
    return new SshConnection(join(this.options.dir, id), place, this.options.runner)
  }

  /**
   * Reaches the host provision_cmd made, starts the agent server there (see
   * startScript) and forwards a local port to it. On failure, throws a message that says
   * what to fix, having removed all it made: on the host (only what it made there), the
   * master, and the session's ssh directory.
   */
  async provision(id: string, host: ProvisionedHost, start: StartScript): Promise<Provisioned> {
    const conn = this.connection(id, { host: host.host, ...(host.port ? { port: host.port } : {}), ...(host.user ? { user: host.user } : {}), remote_port: 0 })
    await mkdir(conn.dir, { recursive: true, mode: 0o700 })
    await writeFile(conn.knownHosts, knownHostsLine(host), { mode: 0o600 })
    let made = false
    try {
      const why = await conn.open()
      if (why !== undefined) throw new Error(sshFailure(why, conn.name))
      const run = await conn.exec(startScript(start))
      made = run.code !== NOTHING_MADE_EXIT && run.code !== WORKSPACE_TAKEN_EXIT
      if (run.code !== 0) {
        const why = run.timedOut ? `it did not finish within ${this.options.runner.timeoutMs / 1000} s` : run.stderrTail || `it exited with ${run.code ?? 'a signal'}`
        throw new Error(`starting svc agent-server on ${conn.name} failed: ${why}`)
      }
      let endpoint: Endpoint
      try {
        endpoint = parseEndpoint(run.stdout)
      } catch (error) {
        throw new Error(`svc agent-server on ${conn.name} printed no usable endpoint: ${(error as Error).message}`, { cause: error })
      }
      conn.place.remote_port = Number(new URL(endpoint.url).port)
      const local = await this.forward(conn, undefined)
      if (typeof local === 'string') throw new Error(`could not forward a local port to the agent server on ${conn.name}: ${local}`)
      const link = new Link(id, start.slug, conn, local)
      link.state = 'up'
      this.links.set(id, link)
      this.schedule(link, this.options.timings.checkMs)
      return { endpoint: { url: localUrl(local), token: endpoint.token }, place: conn.place }
    } catch (error) {
      // A failed start made at most a fresh clone; work the agent began in it is pushed first.
      const released = await this.teardown(conn, made ? { slug: start.slug, branch: start.branch, discard: false, force: true } : undefined)
      if ('kept' in released) this.options.log.warn({ host: conn.name, slug: start.slug, why: released.kept }, 'a failed start left its workspace on the host')
      throw error
    }
  }

  /** A session kept from before a restart: its master reopened (its known_hosts file kept), its forward put back. */
  resume(id: string, slug: string, place: SshPlace, endpoint: string): void {
    const link = new Link(id, slug, this.connection(id, place), Number(new URL(endpoint).port))
    this.links.set(id, link)
    this.schedule(link, 0)
  }

  /**
   * The session ends: its agent server is stopped and, once its work is on origin, its
   * workspace removed on the host; its master ended; its ssh directory removed unless
   * the host keeps work or did not answer (and is not `force`d gone).
   */
  async release(id: string, slug: string, place: SshPlace, how: Release): Promise<Released> {
    const link = this.links.get(id)
    this.links.delete(id)
    if (link) await this.stop(link)
    return this.teardown(link?.conn ?? this.connection(id, place), { slug, ...how })
  }

  /** The sessions that have an ssh directory. */
  async ids(): Promise<string[]> {
    return readdir(this.options.dir).catch(() => [])
  }

  /** An ssh directory no session names: its master, if one still runs, ended; the directory removed. */
  async forget(id: string): Promise<void> {
    const dir = join(this.options.dir, id)
    // `-O exit` finds the master by its control path alone: the host is not asked.
    await this.connection(id, { host: 'localhost', remote_port: 0 }).exit()
    await rm(dir, { recursive: true, force: true })
  }

  /** The daemon stops: every master ends (a restart reopens them); ssh directories stay. */
  async close(): Promise<void> {
    const links = [...this.links.values()]
    this.links.clear()
    await Promise.all(links.map(async (link) => {
      await this.stop(link)
      await link.conn.exit()
    }))
  }

  private async stop(link: Link): Promise<void> {
    link.closed = true
    clearTimeout(link.timer)
    await link.busy
  }

  private async teardown(conn: SshConnection, stop: (StopScript & { force: boolean }) | undefined): Promise<Released> {
    let released: Released = { removed: true }
    if (stop !== undefined) {
      const run = await conn.exec(stopScript(stop))
      const said = redact(run.stderrTail.trim().split('\n').at(-1) ?? '')
      // Only a script that ran to its end removed the workspace: any other ending keeps it.
      if (run.code === SSH_FAILED_EXIT || run.code === undefined) released = { unreachable: sshFailure(run.stderrTail || 'no answer', conn.name) }
      else if (run.code !== 0) released = { kept: run.code === KEPT_EXIT ? said : `the stop script exited with ${run.code}: ${said}` }
    }
    await conn.exit()
    if (letGo(released, stop?.force === true)) await rm(conn.dir, { recursive: true, force: true })
    return released
  }

  /** Forwards a local port to the agent server: `preferred` first (a reopen keeps its endpoint), else free ones. The port, or why not. */
  private async forward(conn: SshConnection, preferred: number | undefined): Promise<number | string> {
    let why = ''
    for (let attempt = 0; attempt < FORWARD_TRIES; attempt += 1) {
      const port = attempt === 0 && preferred !== undefined ? preferred : await freePort()
      const failure = await conn.forward(port, conn.place.remote_port)
      if (failure === undefined) return port
      why = failure
    }
    return why
  }

  private schedule(link: Link, ms: number): void {
    if (link.closed) return
    link.timer = setTimeout(() => {
      link.busy = this.tick(link).catch((error: Error) => this.options.log.warn({ err: error, host: link.conn.name }, 'ssh watch failed'))
    }, ms)
    link.timer.unref()
  }

  /** One look at the master: alive and forwarding, or reopened, or a retry later with backoff. */
  private async tick(link: Link): Promise<void> {
    const { timings, log, listener } = this.options
    const alive = await link.conn.check()
    if (link.closed) return
    if (alive && link.state === 'up') return this.schedule(link, timings.checkMs)
    if (!alive && link.state === 'up') {
      link.state = 'down'
      log.info({ host: link.conn.name }, 'ssh master dropped; reopening with backoff')
      listener.down(link.id)
    }
    const reopened = alive ? undefined : await link.conn.open()
    const forwarded = reopened === undefined && !link.closed ? await this.forward(link.conn, link.localPort) : undefined
    if (link.closed) return
    if (typeof forwarded === 'number') {
      link.localPort = forwarded
      link.state = 'up'
      link.failures = 0
      log.info({ host: link.conn.name }, 'ssh master open; forward in place')
      listener.up(link.id, localUrl(forwarded))
      return this.schedule(link, timings.checkMs)
    }
    if (link.state !== 'down') {
      link.state = 'down'
      listener.down(link.id)
    }
    const failure = reopened !== undefined ? sshFailure(reopened, link.conn.name) : `could not forward a local port: ${forwarded}`
    log.info({ host: link.conn.name, failure }, 'ssh master not reopened yet')
    link.failures += 1
    this.schedule(link, Math.min(timings.retryMs * 2 ** (link.failures - 1), timings.retryMaxMs))
  }
}

function localUrl(port: number): string {
  return `http://127.0.0.1:${port}`
}
