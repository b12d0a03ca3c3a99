import { FleetFollower, readFleet, type FeedState, type Fleet } from '@svc/protocol/browser'
import { api } from './api'

/**
 * The one live copy of the fleet the pages read: @svc/protocol's FleetFollower fed by the
 * event feed (it reads the daemon after every hello, gap or project change), the feed's
 * state, and the last read's failure.
 */
export class FleetStore {
  private feed: FeedState = 'connecting'
  private error = ''
  private readonly listeners = new Set<() => void>()
  private stop: (() => void) | undefined
  private attentionListener: ((session: string, reason: string) => void) | undefined
  private readonly follower = new FleetFollower({
    read: () => readFleet(api),
    changed: (_fleet, change) => {
      if (change === 'read') this.error = ''
      this.emit()
    },
    failed: (error) => {
      this.error = (error as Error).message
      this.emit()
    },
  })
  private view = { fleet: this.follower.fleet, feed: this.feed, error: this.error }

  start(): void {
    this.stop ??= api.events({
      frame: (frame) => {
        if (frame.type === 'session.attention') this.attentionListener?.(frame.data.title, frame.data.reason)
        this.follower.take(frame)
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
    this.follower.markSeen(sessionId)
  }

  private emit(): void {
    this.view = { fleet: this.follower.fleet, feed: this.feed, error: this.error }
    for (const listener of this.listeners) listener()
  }
}

export const fleetStore = new FleetStore()
