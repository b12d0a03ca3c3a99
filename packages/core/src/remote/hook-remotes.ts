import { readdir } from 'node:fs/promises'
import { DaemonError, quote, UnreachableError, type Client, type RequestOf, type ResponseOf, type RouteName } from '@svc/protocol'
import { Refused } from '../errors.js'
import { remoteNoun, setState, stateOf, type SessionRecord, type SessionWire } from '../sessions/record.js'
import { isUnreachable, redact, remoteClient, type Endpoint } from './endpoint.js'
import { EventRelay, type RelayedKind } from './event-relay.js'
import type { HookOptions } from './hook-options.js'
import type { RemoteLink } from './link.js'
import { mirror } from './mirror.js'
import type { Providers } from './provider.js'
import type { SshListener } from './ssh-links.js'

/** The remote's place of a hook record (set on every hook record). */
export function placeOf(record: SessionRecord): NonNullable<SessionRecord['remote']> {
  return record.remote as NonNullable<SessionRecord['remote']>
}

/**
 * Each hook session's remote as the home reaches it: its client and token, its event
 * feed relayed into the record (and the record marked unreachable while it does not
 * answer); its provider reaches it again after a restart, and says when it is reachable.
 */
export class HookRemotes implements SshListener {
  /** Each hook session's client and token, from its token file (read at start) or launch_cmd. */
  private readonly clients = new Map<string, { client: Client; token: string }>()
  /**
   * Tokens read at start, held until the provider reports the remote reachable (a
   * reopened ssh forward): until then the loopback port the record names may be anyone's,
   * so nothing is sent there.
   */
  private readonly held = new Map<string, string>()
  /** The remotes' event feeds, relayed into the home's rows and feed. */
  private readonly relay: EventRelay

  constructor(
    private readonly options: Pick<HookOptions, 'table' | 'tokens' | 'log'>,
    private readonly providers: Providers,
  ) {
    this.relay = new EventRelay({
      onSession: (homeId, row, kind) => this.relayed(homeId, row, kind),
      onReachability: (endpoint, reachable) => this.reachability(endpoint, reachable),
    })
  }

  /** The host a hook session runs on, as messages name it (its provider says). */
  hostOf(record: SessionRecord): string {
    const place = placeOf(record)
    return this.providers[place.via].describe(place)
  }

  clientOf(record: SessionRecord): { client: Client; token: string } {
    if (stateOf(record) === 'archived') throw new Refused(`${remoteNoun(record.remote)} ${quote(record.title)} is archived; restore it with RestoreArchived first`)
    const entry = this.clients.get(record.id)
    if (!entry && this.held.has(record.id)) throw new UnreachableError(`its remote at ${this.hostOf(record)} is not reachable yet since the restart`, undefined)
    if (!entry) throw new Refused(`the token of ${remoteNoun(record.remote)} ${quote(record.title)} is missing (${record.id} under remote-tokens); kill it with force_reap`)
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
      const waits = this.providers[placeOf(record).via].reach(record)
      if (token === undefined) this.options.log.warn({ session: record.title }, 'hook session has no token file; kill it with force_reap')
      else if (waits) this.held.set(record.id, token)
      else this.adopt(record, token)
    }
  }

  async close(): Promise<void> {
    this.relay.close()
    for (const provider of Object.values(this.providers)) await provider.close?.()
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
      const host = this.hostOf(record)
      if (isUnreachable(error)) {
        throw new Refused(`the remote of ${remoteNoun(record.remote)} ${quote(record.title)} at ${host} does not answer (${(error as Error).message}); its last-known state is kept and it is retried`)
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

  /** Its provider lost the way to the remote (a dropped ssh master): unreachable until it is back. */
  down(id: string): void {
    const record = this.options.table.records.get(id)
    if (record) void this.unreachable(record).catch((error: Error) => this.options.log.warn({ err: error }, 'could not mark a remote unreachable'))
  }

  /**
   * Its provider reaches the remote again at `endpoint` (a reopened master's forward,
   * whose local port may have changed): the record, the client and the event feed use
   * it, the feed reconnecting at once rather than at its backoff's next try.
   */
  up(id: string, endpoint: string): void {
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

  /**
   * At start, once interrupted steps are settled: token files, and what each provider
   * keeps per session (ssh directories), that neither a record nor a pending intent names.
   */
  async sweep(named: ReadonlySet<string>): Promise<void> {
    for (const provider of Object.values(this.providers)) await provider.sweep?.(named)
    for (const id of (await readdir(this.options.tokens.dir).catch(() => [] as string[])).filter((each) => !named.has(each))) {
      this.options.log.warn({ id }, 'removing a token file no session names')
      await this.options.tokens.remove(id)
    }
  }
}
