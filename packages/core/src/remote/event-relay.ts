import type { Logger } from 'pino'
import { createClient, EVENTS_PING_MS, type AttentionReason, type Client, type FeedFrame } from '@svc/protocol'
import type { SessionWire } from '../sessions/record.js'
import { SerialQueue } from '../serial.js'
import type { RemoteLink } from './link.js'

/** What a relayed report says happened: a remote frame's kind, or `snapshot` for a row read after a gap or a reconnect. */
export type RelayedKind =
  | 'session.created'
  | 'session.updated'
  | 'session.archived'
  | 'session.restored'
  | 'session.killed'
  | 'session.attention'
  | 'snapshot'

export interface RelayListener {
  /**
   * A watched session changed on its remote. `row` is the remote's row (under the
   * remote's id) for the kinds that carry one; for `snapshot` it is undefined when the
   * remote no longer lists the session. `reason` comes with `session.attention`.
   */
  onSession(homeId: string, row: SessionWire | undefined, kind: RelayedKind, reason?: AttentionReason): void
  /** The endpoint's feed connected (true), or an attempt failed after it was (or was never) connected. Told on changes only. */
  onReachability(endpoint: string, reachable: boolean, error?: Error): void
}

export interface RelayTimings {
  /** The first wait before reconnecting, doubled per failed attempt... */
  retryMs: number
  /** ...up to this. */
  retryMaxMs: number
  /** A feed that hears nothing, not even a ping, for this long is dropped (a remote gone without closing). */
  silenceMs: number
}

export const RELAY_TIMINGS: RelayTimings = { retryMs: 500, retryMaxMs: 30_000, silenceMs: 2 * EVENTS_PING_MS + 5_000 }

export interface RelayOptions {
  timings?: RelayTimings
  /** Where a listener's failure is logged (the relay goes on with the next frame). */
  log?: Logger
}

type SessionFrame = Extract<FeedFrame, { type: `session.${string}` }>
const isSessionFrame = (frame: FeedFrame): frame is SessionFrame => frame.type.startsWith('session.')

const ROW_KINDS = new Set<string>(['session.created', 'session.updated', 'session.archived', 'session.restored'])

/** One remote's event feed, shared by every hook session watched there. */
class Feed {
  /** remote id → home id */
  readonly watched = new Map<string, string>()
  private readonly client: Client
  private readonly abort = new AbortController()
  /** Frames and the Snapshot reads they cause are handled one at a time, in order. */
  private readonly queue = new SerialQueue()
  private reachable: boolean | undefined
  /** The last seq seen on this connection; undefined until its hello. */
  private seq: number | undefined

  constructor(
    readonly endpoint: string,
    token: string,
    private readonly listener: RelayListener,
    private readonly timings: RelayTimings,
    private readonly log: Logger | undefined,
  ) {
    this.client = createClient({ url: endpoint, token }, { timeoutMs: timings.silenceMs })
    void this.run()
  }

  /** A session added while connected is read at once: what changed since its create was not relayed. */
  added(remoteId: string): void {
    if (this.seq !== undefined) void this.inTurn(() => this.resync([remoteId]), 'snapshot')
  }

  close(): void {
    this.abort.abort()
  }

  private async run(): Promise<void> {
    const { retryMs, retryMaxMs, silenceMs } = this.timings
    const feed = this.client.events({ signal: this.abort.signal, retryMs, retryMaxMs, silenceMs, onDown: (error) => this.down(error) })
    for await (const frame of feed) await this.inTurn(() => this.take(frame), frame.type)
  }

  /** Runs after what came before; a listener's failure is logged and the feed goes on. */
  private inTurn(work: () => Promise<void>, what: string): Promise<void> {
    return this.queue.run(work).catch((error: unknown) => this.log?.error({ err: error, endpoint: this.endpoint, frame: what }, 'event relay listener failed'))
  }

  private down(error: Error): void {
    this.seq = undefined
    if (this.reachable === false || this.abort.signal.aborted) return
    this.reachable = false
    this.listener.onReachability(this.endpoint, false, error)
  }

  private async take(frame: FeedFrame): Promise<void> {
    if (this.abort.signal.aborted) return
    if (frame.type === 'hello') {
      // A new connection: whatever happened while there was none is read from Snapshot.
      this.seq = frame.data.seq
      if (this.reachable !== true) {
        this.reachable = true
        this.listener.onReachability(this.endpoint, true)
      }
      return this.resync([...this.watched.keys()])
    }
    // Every event goes to every subscriber in seq order: a jump means frames were lost.
    const gap = this.seq !== undefined && frame.seq !== this.seq + 1
    this.seq = frame.seq
    if (isSessionFrame(frame)) this.relay(frame)
    if (gap) await this.resync([...this.watched.keys()])
  }

  private relay(frame: SessionFrame): void {
    const homeId = this.watched.get(frame.data.id)
    if (homeId === undefined) return
    const row = ROW_KINDS.has(frame.type) ? (frame.data as SessionWire) : undefined
    const reason = frame.type === 'session.attention' ? frame.data.reason : undefined
    this.listener.onSession(homeId, row, frame.type, reason)
  }

  private async resync(remoteIds: string[]): Promise<void> {
    if (remoteIds.length === 0) return
    let rows: SessionWire[]
    try {
      rows = (await this.client.call('Snapshot', {})).instances
    } catch {
      // The remote went away again: its feed drops too, and the next hello reads again.
      return
    }
    const byId = new Map(rows.map((row) => [row.id, row]))
    for (const remoteId of remoteIds) {
      const homeId = this.watched.get(remoteId)
      if (homeId !== undefined && !this.abort.signal.aborted) this.listener.onSession(homeId, byId.get(remoteId), 'snapshot')
    }
  }
}

/**
 * The home daemon's view of its remotes' event feeds: one subscription per remote
 * (endpoint and token), however many hook sessions run there, each frame about a watched
 * session told under its home id. After a gap in the feed's seq, or a reconnect, the
 * watched sessions are read again from the remote's Snapshot. A feed that cannot connect
 * is retried with capped exponential backoff until unwatched.
 */
export class EventRelay {
  private readonly feeds = new Map<string, Feed>()
  /** home id → the feed watching it */
  private readonly watching = new Map<string, { feed: Feed; key: string; remoteId: string }>()

  constructor(
    private readonly listener: RelayListener,
    private readonly options: RelayOptions = {},
  ) {}

  watch(link: RemoteLink): void {
    this.unwatch(link.homeId)
    const key = `${link.endpoint}\n${link.token}`
    let feed = this.feeds.get(key)
    if (!feed) {
      feed = new Feed(link.endpoint, link.token, this.listener, this.options.timings ?? RELAY_TIMINGS, this.options.log)
      this.feeds.set(key, feed)
    }
    feed.watched.set(link.remoteId, link.homeId)
    this.watching.set(link.homeId, { feed, key, remoteId: link.remoteId })
    feed.added(link.remoteId)
  }

  /** Stops relaying the session; the last session of a remote closes its feed. */
  unwatch(homeId: string): void {
    const watched = this.watching.get(homeId)
    if (!watched) return
    this.watching.delete(homeId)
    watched.feed.watched.delete(watched.remoteId)
    if (watched.feed.watched.size > 0) return
    watched.feed.close()
    this.feeds.delete(watched.key)
  }

  /** How many remote feeds are open. */
  get size(): number {
    return this.feeds.size
  }

  close(): void {
    for (const feed of this.feeds.values()) feed.close()
    this.feeds.clear()
    this.watching.clear()
  }
}
