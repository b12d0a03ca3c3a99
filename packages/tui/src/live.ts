import { setTimeout as sleep } from 'node:timers/promises'
import { createClient, type Client, type FeedFrame } from '@svc/protocol'
import { applyFrame, EMPTY_FLEET, needsResync, resynced, seen, type Fleet } from './state/fleet.js'

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
 * The daemon's state as this client knows it: read once (Snapshot, ListTasks,
 * ListProjects), then kept current from the event feed, read again after every hello
 * (a reconnect may have lost events). An external store, so it outlives the screen
 * while the terminal is lent to tmux.
 */
export class Live {
  private state: LiveState = { fleet: EMPTY_FLEET, connection: 'connecting' }
  private readonly listeners = new Set<() => void>()
  private readonly stopping = new AbortController()
  /** Frames that arrive while a read is under way are applied after it. */
  private reading: Promise<void> | undefined

  constructor(private readonly client: Client) {}

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
    this.update({ fleet: seen(this.state.fleet, id) })
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

  private async resync(): Promise<void> {
    const [{ instances }, { tasks }, { projects }] = await Promise.all([
      this.client.call('Snapshot', {}),
      this.client.call('ListTasks', {}),
      this.client.call('ListProjects', {}),
    ])
    this.update({ fleet: resynced(this.state.fleet, instances, tasks, projects), connection: 'live' })
  }

  /** The feed, for as long as the screen is open: a feed that cannot be opened is retried, never fatal. */
  private async follow(): Promise<void> {
    const { signal } = this.stopping
    while (!signal.aborted) {
      try {
        for await (const frame of this.client.events({ signal })) await this.take(frame)
      } catch {
        this.lost()
      }
      await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined)
    }
  }

  private async take(frame: FeedFrame): Promise<void> {
    if (needsResync(frame)) {
      this.reading = this.resync().catch(() => this.lost())
    }
    await this.reading
    this.update({ fleet: applyFrame(this.state.fleet, frame) })
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
      else if (this.state.connection === 'reconnecting') await this.resync().catch(() => this.lost())
    }
  }
}
