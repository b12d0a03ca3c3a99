import { readdir } from 'node:fs/promises'
import { DaemonError, quote, UnreachableError, type Client, type RequestOf, type ResponseOf, type RouteName } from '@svc/protocol'
import { Refused } from '../errors.js'
import { setState, stateOf, type SessionRecord, type SessionWire } from '../sessions/record.js'
import { hostOf, isUnreachable, redact, remoteClient, type Endpoint } from './endpoint.js'
import { EventRelay, type RelayedKind } from './event-relay.js'
import type { HookOptions } from './hook-options.js'
import type { RemoteLink } from './link.js'
import { mirror } from './mirror.js'
import type { ProvisionedHost } from './ssh-host.js'
import type { SshPlace } from '../sessions/record.js'
import { SshLinks, type Release, type Released } from './ssh-links.js'
import type { StartScript } from './remote-scripts.js'

/** The remote's place of a hook record (set on every hook record). */
export function placeOf(record: SessionRecord): NonNullable<SessionRecord['remote']> {
  return record.remote as NonNullable<SessionRecord['remote']>
}

/** The host a hook session runs on, as messages name it: the provisioned host, else its endpoint's. */
export function hostOfPlace(place: NonNullable<SessionRecord['remote']>): string {
  return place.ssh?.host ?? hostOf(place.endpoint)
}

/**
 * Each hook session's remote as the home reaches it: its client and token, its event
 * feed relayed into the record (and the record marked unreachable while it does not
 * answer), and, for a provisioned host, its ssh master and forward, watched.
 */
export class HookRemotes {
  /** Each hook session's client and token, from its token file (read at start) or launch_cmd. */
  private readonly clients = new Map<string, { client: Client; token: string }>()
  /**
   * Provisioned sessions' tokens read at start, held until their ssh forward is up again:
   * until then the loopback port the record names may be anyone's, so nothing is sent there.
   */
  private readonly held = new Map<string, string>()
  /** The remotes' event feeds, relayed into the home's rows and feed. */
  private readonly relay: EventRelay
  /** Provisioned sessions' ssh masters and forwards, watched. */
  private readonly ssh: SshLinks

  constructor(private readonly options: Pick<HookOptions, 'table' | 'config' | 'sshDir' | 'sshTimings' | 'tokens' | 'log' | 'hookEnv' | 'timeoutMs'>) {
    this.relay = new EventRelay({
      onSession: (homeId, row, kind) => this.relayed(homeId, row, kind),
      onReachability: (endpoint, reachable) => this.reachability(endpoint, reachable),
    })
    this.ssh = new SshLinks({
      dir: options.sshDir,
      runner: { command: () => options.config.get('remote_ssh_command'), env: () => options.hookEnv(), timeoutMs: options.timeoutMs },
      log: options.log,
      timings: options.sshTimings,
      listener: { down: (id) => this.sshDown(id), up: (id, endpoint) => this.sshUp(id, endpoint) },
    })
  }


  clientOf(record: SessionRecord): { client: Client; token: string } {
    if (stateOf(record) === 'archived') throw new Refused(`hook session ${quote(record.title)} is archived; restore it with RestoreArchived first`)
    const entry = this.clients.get(record.id)
    if (!entry && this.held.has(record.id)) throw new UnreachableError(`the ssh forward to its host ${hostOfPlace(placeOf(record))} is not up yet`, undefined)
    if (!entry) throw new Refused(`the token of hook session ${quote(record.title)} is missing (${record.id} under remote-tokens); kill it with force_reap`)
    return entry
  }

  /** Takes up a hook session: its token, and its remote's events. */
  adopt(record: SessionRecord, token: string): void {
    this.clients.set(record.id, { client: remoteClient({ url: placeOf(record).endpoint, token }), token })
    this.relay.watch(this.linkOf(record))
  }

  drop(id: string): void {
    this.relay.unwatch(id)
    this.clients.delete(id)
    this.held.delete(id)
  }

  /**
   * Hook sessions as saved, at start: each keeps its last-known row until its remote's
   * feed connects (the row is then read again) or fails (marked unreachable).
   */
  async restore(records: SessionRecord[]): Promise<void> {
    for (const record of records) {
      this.options.table.records.set(record.id, record)
      // An archived one has no remote until it is restored; a kept one's agent server was
      // stopped; a loading one's restore was interrupted, and its journal undoes it.
      if (['archived', 'loading'].includes(stateOf(record) ?? '') || placeOf(record).kept !== undefined) continue
      const token = await this.options.tokens.read(record.id)
      const { ssh, slug, endpoint } = placeOf(record)
      if (token === undefined) this.options.log.warn({ session: record.title }, 'hook session has no token file; kill it with force_reap')
      else if (ssh) this.held.set(record.id, token)
      else this.adopt(record, token)
      // Its master and forward were ended with the daemon: reopened (the known_hosts file kept), then its token is used.
      if (ssh) this.ssh.resume(record.id, slug, ssh, endpoint)
    }
  }

  async close(): Promise<void> {
    this.relay.close()
    await this.ssh.close()
  }

  /** The link the event and stream relays reach the session by. */
  linkOf(record: SessionRecord): RemoteLink {
    const { token } = this.clientOf(record)
    const { endpoint, remote_id } = placeOf(record)
    return { homeId: record.id, remoteId: remote_id, endpoint, token }
  }

  /** A relayed change of a session: its row, or its end. An operation under way owns the record meanwhile. */
  private relayed(homeId: string, row: SessionWire | undefined, kind: RelayedKind): void {
    const record = this.options.table.records.get(homeId)
    if (!record || this.options.table.inFlight(homeId)) return
    if (row === undefined && kind !== 'snapshot' && kind !== 'session.killed') return
    void this.apply(record, row).catch((error: Error) => this.options.log.warn({ err: error, session: record.title }, 'could not apply a relayed row'))
  }

  private reachability(endpoint: string, reachable: boolean): void {
    const { table, log } = this.options
    for (const record of table.records.values()) {
      if (record.remote?.endpoint !== endpoint || !record.remote.remote_id) continue
      log.info({ session: record.title, reachable }, reachable ? 'remote answers again' : 'remote does not answer; retrying with backoff')
      // Reachable again: the feed's Snapshot read that follows brings the row back.
      if (!reachable) void this.unreachable(record).catch((error: Error) => log.warn({ err: error }, 'could not mark a remote unreachable'))
    }
  }

  /** A call to the session's remote, failures as they came (the token never in a message). */
  async call<N extends RouteName>(record: SessionRecord, name: N, body?: RequestOf<N>): Promise<ResponseOf<N>> {
    const { client, token } = this.clientOf(record)
    try {
      return await client.call(name, body)
    } catch (error) {
      ;(error as Error).message = redact((error as Error).message, token)
      throw error
    }
  }

  /** A call whose failure is the answer: said as the remote's, or as the remote not answering. */
  async ask<N extends RouteName>(record: SessionRecord, name: N, body: RequestOf<N>): Promise<ResponseOf<N>> {
    try {
      return await this.call(record, name, body)
    } catch (error) {
      const host = hostOfPlace(placeOf(record))
      if (isUnreachable(error)) {
        throw new Refused(`the remote of hook session ${quote(record.title)} at ${host} does not answer (${(error as Error).message}); its last-known state is kept and it is retried`)
      }
      if (error instanceof DaemonError) throw new Refused(`the remote agent server at ${host} answered: ${error.message}`)
      throw error
    }
  }

  /** The remote's row of the session, or undefined when the remote has no such session. */
  private async remoteRow(record: SessionRecord): Promise<SessionWire | undefined> {
    const { instances } = await this.call(record, 'Snapshot', {})
    return instances.find((row) => row.id === placeOf(record).remote_id)
  }

  /**
   * Reads the remote's row into the record and saves it when it changed: the row the
   * home shows (and its event feed announces). A session the remote no longer has is dead.
   */
  async refresh(record: SessionRecord): Promise<void> {
    await this.apply(record, await this.remoteRow(record))
  }

  /** The remote's row (none: the remote no longer has the session, which is dead) into the record, saved when it changed. */
  private async apply(record: SessionRecord, row: SessionWire | undefined): Promise<void> {
    const { table } = this.options
    const place = placeOf(record)
    const before = stateOf(record)
    let changed = place.unreachable === true
    delete place.unreachable
    if (row) changed = mirror(record, row) || changed
    else changed = setState(record, 'dead') || changed
    if (!changed || !table.records.has(record.id)) return
    table.touch(record)
    await table.save(record, false)
    // As the observer says of a local session: task runs in it complete on this.
    if (before === 'running' && stateOf(record) === 'ready') table.emit(record.id, 'settled')
  }

  /** A provisioned session's ssh master dropped: its remote is unreachable until it is reopened. */
  private sshDown(id: string): void {
    const record = this.options.table.records.get(id)
    if (record) void this.unreachable(record).catch((error: Error) => this.options.log.warn({ err: error }, 'could not mark a remote unreachable'))
  }

  /**
   * A provisioned session's master is open again and forwards `endpoint` (its local port
   * may have changed): the record, the client and the event feed use it, the feed
   * reconnecting at once rather than at its backoff's next try.
   */
  private sshUp(id: string, endpoint: string): void {
    const record = this.options.table.records.get(id)
    const token = this.clients.get(id)?.token ?? this.held.get(id)
    if (!record || token === undefined) return
    this.held.delete(id)
    const place = placeOf(record)
    if (place.endpoint !== endpoint) {
      place.endpoint = endpoint
      void this.options.table.save(record, false).catch((error: Error) => this.options.log.warn({ err: error }, 'could not save a moved forward'))
    }
    this.adopt(record, token)
  }

  /** The remote stopped answering: the record keeps its last-known state, marked so. */
  async unreachable(record: SessionRecord): Promise<void> {
    const place = placeOf(record)
    if (place.unreachable || !this.options.table.records.has(record.id)) return
    place.unreachable = true
    this.options.table.touch(record)
    await this.options.table.save(record, false)
  }

  /** A launched remote's client, before its session there exists: calls reach it, its events are not watched yet. */
  connect(record: SessionRecord, endpoint: Endpoint): void {
    this.clients.set(record.id, { client: remoteClient(endpoint), token: endpoint.token })
  }

  /** Whether the session has a remote to ask: a token was read or launched (not that it answers). */
  hasToken(id: string): boolean {
    return this.clients.has(id)
  }

  /** Lets the session's event feed go, first of a teardown: an agent server being stopped need not wait for it. */
  unwatch(id: string): void {
    this.relay.unwatch(id)
  }

  /** Starts an agent server on the host provision_cmd made, over ssh: the forward's endpoint; the record keeps the host. */
  async provision(record: SessionRecord, host: ProvisionedHost, start: StartScript): Promise<Endpoint> {
    const provisioned = await this.ssh.provision(record.id, host, start)
    placeOf(record).ssh = provisioned.place
    return provisioned.endpoint
  }

  /**
   * A provisioned host's agent server, master and ssh directory, which svc made: gone
   * (its work put on origin first, see stopScript) before delete_cmd takes the host away.
   * The record keeps the host while the host keeps work or did not answer.
   */
  async releaseHost(record: SessionRecord, how: Omit<Release, 'branch'>): Promise<Released> {
    const place = placeOf(record)
    if (!place.ssh) return { removed: true }
    const released = await this.ssh.release(record.id, place.slug, place.ssh, { ...how, branch: record.branch })
    if ('removed' in released || ('unreachable' in released && how.force)) delete place.ssh
    return released
  }

  /**
   * A host a start reached before the daemon died (its journaled intent names it, no
   * record does): released as a record's would be, its work pushed first when it can be.
   */
  async releaseUnrecorded(id: string, slug: string, place: SshPlace, branch: string): Promise<void> {
    const released = await this.ssh.release(id, slug, place, { branch, discard: false, force: true })
    if ('kept' in released) this.options.log.warn({ host: place.host, slug, why: released.kept }, 'an interrupted start left its workspace on the host')
  }

  /**
   * At start, once interrupted steps are settled: ssh directories (their masters ended)
   * and token files that neither a record nor a pending intent names are removed.
   */
  async sweep(named: ReadonlySet<string>): Promise<void> {
    const stray = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).filter((id) => !named.has(id))
    for (const id of await stray(this.options.sshDir)) {
      this.options.log.warn({ id }, 'removing an ssh directory no session names')
      await this.ssh.forget(id)
    }
    for (const id of await stray(this.options.tokens.dir)) {
      this.options.log.warn({ id }, 'removing a token file no session names')
      await this.options.tokens.remove(id)
    }
  }
}
