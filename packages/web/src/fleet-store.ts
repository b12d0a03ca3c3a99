import type { FeedFrame, FeedState } from '@svc/protocol/browser'
import { api } from './api'
import { applied, emptyFleet, loaded, seen, type Fleet } from './fleet-state'

/**
 * The one live copy of the fleet the pages read: Snapshot and ListTasks after every
 * hello of the event feed (the first, and each after a drop or a daemon restart, when
 * events may have been missed), then the events themselves.
 */
export class FleetStore {
  private fleet: Fleet = emptyFleet()
  private feed: FeedState = 'connecting'
  private error = ''
  private readonly listeners = new Set<() => void>()
  private stop: (() => void) | undefined
  private attentionListener: ((session: string, reason: string) => void) | undefined
  /** Events that arrived while Snapshot and ListTasks were being read, if they are. */
  private sinceReload: FeedFrame[] | undefined

  start(): void {
    this.stop ??= api.events({
      frame: (frame) => {
        if (frame.type === 'hello') return void this.reload()
        if (frame.type === 'session.attention') this.attentionListener?.(frame.data.title, frame.data.reason)
        this.sinceReload?.push(frame)
        this.set(applied(this.fleet, frame))
      },
      state: (state) => {
        this.feed = state
        this.emit()
      },
    })
  }

  onAttention(listener: (session: string, reason: string) => void): void {
    this.attentionListener = listener
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  snapshot = (): { fleet: Fleet; feed: FeedState; error: string } => this.view

  markSeen(sessionId: string): void {
    this.set(seen(this.fleet, sessionId))
  }

  private view = { fleet: this.fleet, feed: this.feed, error: this.error }

  private async reload(): Promise<void> {
    const since: FeedFrame[] = []
    this.sinceReload = since
    try {
      const [snapshot, tasks] = await Promise.all([api.call('Snapshot', {}), api.call('ListTasks', {})])
      this.error = ''
      this.set(loaded(this.fleet, snapshot.instances, tasks.tasks, snapshot.boot_id, since))
    } catch (error) {
      this.error = (error as Error).message
      this.emit()
    } finally {
      if (this.sinceReload === since) this.sinceReload = undefined
    }
  }

  private set(fleet: Fleet): void {
    if (fleet === this.fleet) return
    this.fleet = fleet
    this.emit()
  }

  private emit(): void {
    this.view = { fleet: this.fleet, feed: this.feed, error: this.error }
    for (const listener of this.listeners) listener()
  }
}

export const fleetStore = new FleetStore()
