import type { WebSocket } from 'ws'
import type { DomainEvent, EventBus } from '@svc/core'
import { EVENTS_OVERFLOW_CODE, EVENTS_OVERFLOW_REASON, EVENTS_PING_MS, EVENTS_QUEUE_FRAMES, type HelloFrame } from '@svc/protocol'

interface Subscriber {
  /** Frames handed to the socket and not yet written out. */
  waiting: number
  /** Whether a pong came back since the last ping. */
  answered: boolean
}

/**
 * The event plane's fan-out: every subscriber gets each frame, already encoded, through
 * its own bounded queue. Nothing here waits for a socket: a subscriber whose queue is
 * full is closed (1013) and one that stops answering pings is dropped.
 */
export class EventSubscribers {
  private readonly sockets = new Map<WebSocket, Subscriber>()
  private readonly unsubscribe: () => void
  private readonly keepalive: NodeJS.Timeout

  constructor(
    private readonly bus: EventBus,
    private readonly bootId: string,
  ) {
    this.unsubscribe = bus.subscribe((event) => this.fanOut(event))
    this.keepalive = setInterval(() => this.ping(), EVENTS_PING_MS).unref()
  }

  get size(): number {
    return this.sockets.size
  }

  /** Greets a new subscriber with the boot and the last seq; events follow from the next one. */
  add(socket: WebSocket): void {
    const hello: HelloFrame = { type: 'hello', data: { boot_id: this.bootId, seq: this.bus.seq } }
    const subscriber: Subscriber = { waiting: 0, answered: true }
    this.sockets.set(socket, subscriber)
    socket.on('pong', () => (subscriber.answered = true))
    socket.on('close', () => this.sockets.delete(socket))
    // A socket error is followed by close; nothing else to do.
    socket.on('error', () => {})
    // The plane is server to client only: anything sent to it is ignored.
    this.send(socket, subscriber, JSON.stringify(hello))
  }

  close(): void {
    clearInterval(this.keepalive)
    this.unsubscribe()
    for (const socket of this.sockets.keys()) socket.terminate()
  }

  private fanOut(event: DomainEvent): void {
    for (const [socket, subscriber] of this.sockets) this.send(socket, subscriber, event.frame)
  }

  private send(socket: WebSocket, subscriber: Subscriber, frame: string): void {
    if (subscriber.waiting >= EVENTS_QUEUE_FRAMES) {
      // Dropped at once: the close frame waits behind the queue, this subscriber gets nothing more.
      this.sockets.delete(socket)
      socket.close(EVENTS_OVERFLOW_CODE, EVENTS_OVERFLOW_REASON)
      return
    }
    subscriber.waiting++
    socket.send(frame, () => subscriber.waiting--)
  }

  private ping(): void {
    for (const [socket, subscriber] of this.sockets) {
      if (!subscriber.answered) {
        this.sockets.delete(socket)
        socket.terminate()
        continue
      }
      subscriber.answered = false
      socket.ping()
    }
  }
}
