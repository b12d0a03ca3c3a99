import type { WebSocket } from 'ws'
import { StreamClose, type WireFrame } from '@svc/protocol'
import type { Subscriber } from './terminal.js'

/** A subscriber further behind than this is dropped: a stalled client must not hold the daemon's memory. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024
const OVERFLOW = 1013

/**
 * A WebSocket subscribed to a terminal. It joins during the upgrade, before its socket
 * exists, so frames wait here until the socket is bound.
 */
export class SocketSubscriber implements Subscriber {
  private socket: WebSocket | undefined
  private readonly waiting: WireFrame[] = []
  private ended = false

  send(frame: WireFrame): void {
    if (!this.socket) {
      this.waiting.push(frame)
      return
    }
    if (this.socket.readyState !== this.socket.OPEN) return
    if (this.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.socket.close(OVERFLOW, 'stream subscriber overflow')
      return
    }
    this.socket.send(frame)
  }

  end(): void {
    this.ended = true
    this.socket?.close(StreamClose.normal)
  }

  bind(socket: WebSocket): void {
    this.socket = socket
    for (const frame of this.waiting.splice(0)) this.send(frame)
    if (this.ended) socket.close(StreamClose.normal)
  }
}
