import type { Logger } from 'pino'
import { freePort } from '../sessions/runtime.js'
import type { SshPlace } from '../sessions/record.js'
import { parseEndpoint, redact, type Endpoint } from './endpoint.js'
import { KEPT_EXIT, NOTHING_MADE_EXIT, startScript, stopScript, WORKSPACE_TAKEN_EXIT, type StartScript, type StopScript } from './remote-scripts.js'
import type { ProvisionedHost } from './ssh-host.js'
import type { SshMasters } from './ssh-masters.js'
import type { SshConnection, SshRunner } from './ssh.js'

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
  /** Where each session's connection comes from: its own master, or its host's shared one. */
  masters: SshMasters
  source: HostSource
  runner: Pick<SshRunner, 'timeoutMs'>
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

/** Who named the hosts a SshLinks reaches: messages say where to fix a host or its key. */
export type HostSource = 'provision_cmd' | 'ssh_hosts' | 'docker.host'

/** Per source: the key a host must present, how to fix a key that does not match, where its address comes from. */
const SOURCES: Record<HostSource, { pinned: string; rekey: string; where: string }> = {
  provision_cmd: {
    pinned: 'the host_key provision_cmd printed',
    rekey: 'make provision_cmd print the public host key of the host it made',
    where: 'the host and port provision_cmd printed',
  },
  ssh_hosts: {
    pinned: 'the host_key ssh_hosts pins for it',
    rekey: 'if the host was rebuilt, check its new key with the host\'s owner and pin it again (svc hosts remove, then svc hosts add with --host-key or --scan)',
    where: 'the host and port in ssh_hosts (svc hosts list)',
  },
  'docker.host': {
    pinned: 'the key svc trusts for it (its ssh_hosts entry\'s host_key, else your ~/.ssh/known_hosts)',
    rekey: 'if the host was rebuilt, check its new key with the host\'s owner and pin it again (in ssh_hosts, or ~/.ssh/known_hosts)',
    where: 'docker.host',
  },
}

/** ssh's account of a failed connect, worded to say what to fix. */
export function sshFailure(why: string, name: string, source: HostSource = 'provision_cmd'): string {
  const said = why.trim().split('\n').filter(Boolean).at(-1) ?? why
  const { pinned, rekey, where } = SOURCES[source]
  if (/Host key verification failed|host identification has changed|has changed and you have requested strict checking/i.test(why)) {
    return `the host key ${name} presented does not match ${pinned} (ssh: Host key verification failed); ${rekey}`
  }
  if (/Connection refused|timed out|No route to host|Network is unreachable|Could not resolve hostname|Name or service not known|Connection closed by remote host/i.test(why)) {
    return `cannot reach ${name} over ssh (ssh: ${said}); check ${where}, and that sshd runs there`
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
  /** Its connection's `opened` when its forward was made: a master reopened since has not got it. */
  opened = 0

  constructor(
    readonly id: string,
    readonly slug: string,
    readonly conn: SshConnection,
    /** The agent server's port on the host's loopback. */
    readonly remotePort: number,
    public localPort: number,
  ) {}
}

/**
 * What a start does on the host once its master is open, before the start script: the
 * `remote_svc_command` to start the agent server with (svc installed there first, when
 * the host lacks it), or throws a message that says what to fix, nothing made there.
 */
export type Prepare = (conn: SshConnection) => Promise<string>

/**
 * The ssh side of sessions svc starts over ssh: a pinned known_hosts and a ControlMaster
 * (the session's own, or its host's shared one: see SshMasters), the agent server started
 * on the host through it, a local port forwarded to it; then the master watched,
 * reopened with backoff when it drops and the forward put back (on the same local port
 * when it is free).
 */
export class SshLinks {
  private readonly links = new Map<string, Link>()

  constructor(private readonly options: SshLinksOptions) {}

  /**
   * Reaches the host provision_cmd made, starts the agent server there (see
   * startScript) and forwards a local port to it. On failure, throws a message that says
   * what to fix, having removed all it made: on the host (only what it made there), the
   * master, and the session's ssh directory.
   */
  async provision(id: string, host: ProvisionedHost & { name?: string }, start: Omit<StartScript, 'svc'>, prepare: Prepare): Promise<Provisioned> {
    const { name, hostKey: _key, ...reached } = host
    const place: SshPlace = { ...(name ? { name } : {}), ...reached, remote_port: 0 }
    const conn = await this.options.masters.attach(id, host, place)
    let made = false
    let forwarded: number | undefined
    try {
      const why = await conn.open()
      if (why !== undefined) throw new Error(sshFailure(why, conn.name, this.options.source))
      const svc = await prepare(conn)
      const run = await conn.exec(startScript({ ...start, svc }))
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
      place.remote_port = Number(new URL(endpoint.url).port)
      const local = await this.forward(conn, place.remote_port, undefined)
      if (typeof local === 'string') throw new Error(`could not forward a local port to the agent server on ${conn.name}: ${local}`)
      forwarded = local
      this.track(new Link(id, start.slug, conn, place.remote_port, local))
      return { endpoint: { url: localUrl(local), token: endpoint.token }, place }
    } catch (error) {
      // A failed start made at most a fresh clone; work the agent began in it is pushed first.
      const forward = forwarded === undefined ? undefined : { local: forwarded, remote: place.remote_port }
      const released = await this.teardown(id, conn, forward, made ? { slug: start.slug, branch: start.branch, discard: false, force: true } : undefined)
      if ('kept' in released) this.options.log.warn({ host: conn.name, slug: start.slug, why: released.kept }, 'a failed start left its workspace on the host')
      throw error
    }
  }

  /**
   * Forwards a local port to `remote` on the host's loopback, where svc started nothing
   * itself (a container's published port), watched as a provisioned session's forward
   * is. The local port, or why not (the master stays for `release`).
   */
  async watch(id: string, slug: string, conn: SshConnection, remote: number): Promise<number | string> {
    const local = await this.forward(conn, remote, undefined)
    if (typeof local === 'number') this.track(new Link(id, slug, conn, remote, local))
    return local
  }

  private track(link: Link): void {
    link.opened = link.conn.opened
    link.state = 'up'
    this.links.set(link.id, link)
    this.schedule(link, this.options.timings.checkMs)
  }

  /** A session kept from before a restart: its master reopened (its known_hosts file kept), its forward put back. */
  resume(id: string, slug: string, place: SshPlace, endpoint: string): void {
    const link = new Link(id, slug, this.options.masters.resume(id, place), place.remote_port, Number(new URL(endpoint).port))
    this.links.set(id, link)
    this.schedule(link, 0)
  }

  /**
   * The session ends: its agent server is stopped and, once its work is on origin, its
   * workspace removed on the host; its master ended; its ssh directory removed unless
   * the host keeps work or did not answer (and is not `force`d gone). Without `how`,
   * only the forward and the session's share of its master go (svc started nothing there).
   */
  async release(id: string, slug: string, place: SshPlace, how: Release | undefined): Promise<Released> {
    const link = this.links.get(id)
    this.links.delete(id)
    if (link) await this.stop(link)
    const forward = link ? { local: link.localPort, remote: link.remotePort } : undefined
    return this.teardown(id, link?.conn ?? this.options.masters.resume(id, place), forward, how && { slug, ...how })
  }

  /** The daemon stops: every master ends (a restart reopens them); ssh directories stay. */
  async close(): Promise<void> {
    const links = [...this.links.values()]
    this.links.clear()
    await Promise.all(links.map(async (link) => {
      await this.stop(link)
      await this.options.masters.detach(link.id, link.conn, undefined, false)
    }))
    await this.options.masters.close()
  }

  private async stop(link: Link): Promise<void> {
    link.closed = true
    clearTimeout(link.timer)
    await link.busy
  }

  private async teardown(id: string, conn: SshConnection, forward: { local: number; remote: number } | undefined, stop: (StopScript & { force: boolean }) | undefined): Promise<Released> {
    let released: Released = { removed: true }
    if (stop !== undefined) {
      const run = await conn.exec(stopScript(stop))
      const said = redact(run.stderrTail.trim().split('\n').at(-1) ?? '')
      // Only a script that ran to its end removed the workspace: any other ending keeps it.
      if (run.code === SSH_FAILED_EXIT || run.code === undefined) released = { unreachable: sshFailure(run.stderrTail || 'no answer', conn.name, this.options.source) }
      else if (run.code !== 0) released = { kept: run.code === KEPT_EXIT ? said : `the stop script exited with ${run.code}: ${said}` }
    }
    await this.options.masters.detach(id, conn, forward, letGo(released, stop?.force === true))
    return released
  }

  /** Forwards a local port to the agent server: `preferred` first (a reopen keeps its endpoint), else free ones. The port, or why not. */
  private async forward(conn: SshConnection, remote: number, preferred: number | undefined): Promise<number | string> {
    let why = ''
    for (let attempt = 0; attempt < FORWARD_TRIES; attempt += 1) {
      const port = attempt === 0 && preferred !== undefined ? preferred : await freePort()
      const failure = await conn.forward(port, remote)
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
    // A shared master another of its users reopened meanwhile answers, without this link's forward.
    if (alive && link.state === 'up' && link.opened === link.conn.opened) return this.schedule(link, timings.checkMs)
    if (!alive && link.state === 'up') {
      link.state = 'down'
      log.info({ host: link.conn.name }, 'ssh master dropped; reopening with backoff')
      listener.down(link.id)
    }
    const reopened = alive ? undefined : await link.conn.open()
    const forwarded = reopened === undefined && !link.closed ? await this.forward(link.conn, link.remotePort, link.localPort) : undefined
    if (link.closed) return
    if (typeof forwarded === 'number') {
      link.opened = link.conn.opened
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
    const failure = reopened !== undefined ? sshFailure(reopened, link.conn.name, this.options.source) : `could not forward a local port: ${forwarded}`
    log.info({ host: link.conn.name, failure }, 'ssh master not reopened yet')
    link.failures += 1
    this.schedule(link, Math.min(timings.retryMs * 2 ** (link.failures - 1), timings.retryMaxMs))
  }
}

function localUrl(port: number): string {
  return `http://127.0.0.1:${port}`
}
