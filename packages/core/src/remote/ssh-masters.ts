import { mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import type { SshPlace } from '../sessions/record.js'
import type { HookRun } from './hook-command.js'
import { knownHostsLine, type ProvisionedHost } from './ssh-host.js'
import { SshConnection, type SshRunner } from './ssh.js'

/**
 * Where sessions' ssh connections come from: a ControlMaster per session (hosts
 * provision_cmd makes, one session each), or one per host that its sessions share (the
 * hosts of ssh_hosts).
 */
export interface SshMasters {
  /** The session's connection to the host, its key pinned; not opened yet. */
  attach(id: string, host: ProvisionedHost, place: SshPlace): Promise<SshConnection>
  /** The connection of a session from before a restart, or one released without a link (its known_hosts kept). */
  resume(id: string, place: SshPlace): SshConnection
  /**
   * The session is done with its connection: its forward (`local` to `remote`) goes, the
   * master ends once no session uses it, and with `forget` what it kept here goes too.
   */
  detach(id: string, conn: SshConnection, forward: { local: number; remote: number } | undefined, forget: boolean): Promise<void>
  /** The daemon stops: every master ends (a restart reopens them); their directories stay. */
  close(): Promise<void>
}

/** provision_cmd's hosts: a ControlMaster per session in `<dir>/<session id>`, ended with its session. */
export class SessionMasters implements SshMasters {
  constructor(
    private readonly dir: string,
    private readonly runner: SshRunner,
  ) {}

  private connection(id: string, place: SshPlace): SshConnection {
    return new SshConnection(join(this.dir, id), place, this.runner)
  }

  async attach(id: string, host: ProvisionedHost, place: SshPlace): Promise<SshConnection> {
    const conn = this.connection(id, place)
    await mkdir(conn.dir, { recursive: true, mode: 0o700 })
    await writeFile(conn.knownHosts, knownHostsLine(host), { mode: 0o600 })
    return conn
  }

  resume(id: string, place: SshPlace): SshConnection {
    return this.connection(id, place)
  }

  async detach(_id: string, conn: SshConnection, _forward: unknown, forget: boolean): Promise<void> {
    await conn.exit()
    if (forget) await rm(conn.dir, { recursive: true, force: true })
  }

  /** Each session's master ends with its link (SshLinks.close). */
  async close(): Promise<void> {}

  /** The sessions that have an ssh directory. */
  async ids(): Promise<string[]> {
    return readdir(this.dir).catch(() => [])
  }

  /** An ssh directory no session names: its master, if one still runs, ended; the directory removed. */
  async forget(id: string): Promise<void> {
    // `-O exit` finds the master by its control path alone: the host is not asked.
    await this.connection(id, { host: 'localhost', remote_port: 0 }).exit()
    await rm(join(this.dir, id), { recursive: true, force: true })
  }
}

/**
 * sshd counts session channels (each exec) per connection against MaxSessions (10 by
 * default; forwards do not count): a shared master runs at most this many at once, the
 * rest wait their turn, so many sessions starting on one host never hit "channel open failed".
 */
export const MASTER_EXEC_LIMIT = 8

/** A host's one ControlMaster, shared by its sessions: opened once, its exec runs queued below MaxSessions. */
export class SharedConnection extends SshConnection {
  /** The sessions that use it: it ends when the last one goes. */
  readonly users = new Set<string>()
  private opening: Promise<string | undefined> | undefined
  private running = 0
  private readonly waiting: Array<() => void> = []

  /** Opens the master unless it answers; sessions asking at once share one open. */
  override open(): Promise<string | undefined> {
    this.opening ??= (async () => ((await this.check()) ? undefined : super.open()))().finally(() => (this.opening = undefined))
    return this.opening
  }

  override exec(script: string): Promise<HookRun> {
    return this.queued(() => super.exec(script))
  }

  override send(script: string, input: Readable): Promise<HookRun> {
    return this.queued(() => super.send(script, input))
  }

  private async queued<T>(run: () => Promise<T>): Promise<T> {
    if (this.running >= MASTER_EXEC_LIMIT) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.running += 1
    try {
      return await run()
    } finally {
      // A waiter takes the slot over; otherwise it is free.
      const next = this.waiting.shift()
      if (next) next()
      else this.running -= 1
    }
  }
}

/** The hosts of ssh_hosts: one shared master per host name in `<dir>/<name>`, ended when its last session goes. */
export class HostMasters implements SshMasters {
  private readonly masters = new Map<string, SharedConnection>()

  constructor(
    private readonly dir: string,
    private readonly runner: SshRunner,
  ) {}

  private master(name: string, place: SshPlace): SharedConnection {
    let conn = this.masters.get(name)
    if (!conn) {
      conn = new SharedConnection(join(this.dir, name), { ...place, remote_port: 0 }, this.runner)
      this.masters.set(name, conn)
    }
    return conn
  }

  async attach(id: string, host: ProvisionedHost, place: SshPlace): Promise<SshConnection> {
    const name = place.name as string
    const fresh = !this.masters.has(name)
    const conn = this.master(name, place)
    conn.users.add(id)
    if (fresh) {
      // The key as ssh_hosts pins it now (a master that runs keeps the one it was opened with).
      await mkdir(conn.dir, { recursive: true, mode: 0o700 })
      await writeFile(conn.knownHosts, knownHostsLine(host), { mode: 0o600 })
    }
    return conn
  }

  resume(id: string, place: SshPlace): SshConnection {
    const conn = this.master(place.name as string, place)
    conn.users.add(id)
    return conn
  }

  async detach(id: string, conn: SshConnection, forward: { local: number; remote: number } | undefined, forget: boolean): Promise<void> {
    const shared = conn as SharedConnection
    if (forward) await shared.cancel(forward.local, forward.remote)
    shared.users.delete(id)
    if (shared.users.size > 0 || this.masters.get(shared.place.name ?? '') !== shared) return
    this.masters.delete(shared.place.name ?? '')
    await shared.exit()
    if (forget) await rm(shared.dir, { recursive: true, force: true })
  }

  async close(): Promise<void> {
    const masters = [...this.masters.values()]
    this.masters.clear()
    await Promise.all(masters.map((conn) => conn.exit()))
  }

  /** Whether a master of that name is in use (attached, or resumed). */
  has(name: string): boolean {
    return this.masters.has(name)
  }

  /** The host names that have a directory here. */
  async names(): Promise<string[]> {
    return readdir(this.dir).catch(() => [])
  }

  /** A host's directory no session uses: its master, if one still runs (a daemon that died), ended; the directory removed. */
  async forget(name: string): Promise<void> {
    if (this.masters.has(name)) return
    await new SshConnection(join(this.dir, name), { host: 'localhost', remote_port: 0 }, this.runner).exit()
    await rm(join(this.dir, name), { recursive: true, force: true })
  }
}
