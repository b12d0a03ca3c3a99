import type { Logger } from 'pino'
import type { EventData, EventKind } from '@svc/protocol'

/** One published event: its kind, its place in this boot's sequence, its data, and the frame as sent. */
export type DomainEvent = {
  [K in EventKind]: {
    type: K
    seq: number
    data: EventData[K]
    /** The wire frame, encoded once for every subscriber. */
    frame: string
  }
}[EventKind]

export type EventListener = (event: DomainEvent) => void

/**
 * The domain's typed events, published by the single writer after a change is durable.
 * Listeners run synchronously and must not block: the daemon queues frames per
 * subscriber, the notifier spawns and moves on. Closed until the core is ready, so the
 * state restored at start is not replayed as news.
 */
export class EventBus {
  private counter = 0
  private open = false
  private readonly listeners = new Set<EventListener>()

  constructor(private readonly log: Logger) {}

  /** The last seq published. */
  get seq(): number {
    return this.counter
  }

  start(): void {
    this.open = true
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** `json` is `data` already encoded (a wire cache's text), so it is not encoded twice. */
  publish<K extends EventKind>(type: K, data: EventData[K], json?: string): void {
    if (!this.open) return
    const seq = ++this.counter
    const body = data === undefined ? '' : `,"data":${json ?? JSON.stringify(data)}`
    const event = { type, seq, data, frame: `{"type":"${type}","seq":${seq}${body}}` } as DomainEvent
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch (error) {
        this.log.error({ err: error, event: type }, 'event listener failed')
      }
    }
  }
}
