import { setTimeout as sleep } from 'node:timers/promises'
import { createClient, FleetFollower, readFleet, type Client, type FeedFrame, type Fleet } from '@svc/protocol'

export type Connection = 'connecting' | 'live' | 'reconnecting'

export interface LiveState {
  fleet: Fleet
  connection: Connection
}

/** How often one Health call checks that the daemon still answers between events. */
const PROBE_MS = 2_000
/** A daemon too busy to answer Health this fast counts as away. */
const PROBE_TIMEOUT_MS = 3_000
const RETRY_MS = 500

/**
 * The daemon's state as this client knows it: the fleet kept by @svc/protocol's
 * FleetFollower from the event feed, and whether the daemon answers. An external store,
 * so it outlives the screen while the terminal is lent to tmux.
 */
export class Live {
  private readonly follower: FleetFollower
  private state: LiveState
  private readonly listeners = new Set<() => void>()
  private readonly stopping = new AbortController()

  constructor(private readonly client: Client) {
    this.follower = new FleetFollower({
      read: () => readFleet(client),
      // A read answered: the daemon is there.
      changed: (fleet, change) => this.update(change === 'read' ? { fleet, connection: 'live' } : { fleet }),
      failed: () => this.lost(),
    })
    this.state = { fleet: this.follower.fleet, connection: 'connecting' }
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  readonly current = (): LiveState => this.state

  /** Calls `listener` with every event frame, after the state took it in. */
  onFrame: ((frame: FeedFrame) => void) | undefined

  start(): void {
    void this.follow()
    void this.probe()
  }

  stop(): void {
    this.stopping.abort()
  }

  /** The session was looked at: its attention mark goes. */
  markSeen(id: string): void {
    this.follower.markSeen(id)
  }

  /** A call failed for want of a daemon: say so until the feed is back. */
  lost(): void {
    if (this.state.connection === 'live') this.update({ connection: 'reconnecting' })
  }

  private update(change: Partial<LiveState>): void {
    const next = { ...this.state, ...change }
    if (next.fleet === this.state.fleet && next.connection === this.state.connection) return
    this.state = next
    for (const listener of this.listeners) listener()
  }

  /** The feed, for as long as the screen is open: a feed that cannot be opened is retried, never fatal. */
  private async follow(): Promise<void> {
    const { signal } = this.stopping
    while (!signal.aborted) {
      try {
        for await (const frame of this.client.events({ signal })) this.take(frame)
      } catch {
        this.lost()
      }
      await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined)
    }
  }

  private take(frame: FeedFrame): void {
    this.follower.take(frame)
    this.onFrame?.(frame)
  }

  /**
   * The feed is silent while the daemon is away: one Health call every few seconds
   * notices sooner, and a daemon answering again is read again at once.
   */
  private async probe(): Promise<void> {
    const { signal } = this.stopping
    const prober = createClient(this.client.target, { timeoutMs: PROBE_TIMEOUT_MS })
    while (!signal.aborted) {
      await sleep(PROBE_MS, undefined, { signal }).catch(() => undefined)
      if (signal.aborted) return
      const answered = await prober.call('Health').then(
        () => true,
        () => false,
      )
      if (!answered) this.lost()
      else if (this.state.connection === 'reconnecting') await this.follower.resync()
    }
  }
}
