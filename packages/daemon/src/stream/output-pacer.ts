/**
 * Output read sooner than this after the last output sent, with no key typed in between,
 * is held for the rest of it: a terminal printing fast goes out as one frame per interval
 * instead of one per pty read (each a write to every subscriber, and a wake-up of a relay
 * and of every client), while the echo of a key goes at once.
 */
export const PACE_MS = 2

/** A terminal's output on its way out: passed on at once, or held and joined while it streams. */
export class OutputPacer {
  private readonly held: Buffer[] = []
  private timer: NodeJS.Timeout | undefined
  private lastSentAt = -Infinity
  private keyed = false

  constructor(private readonly send: (data: Buffer) => void) {}

  /** A key was typed: the output that answers it is not held. */
  keyTyped(): void {
    this.keyed = true
  }

  push(data: Buffer): void {
    if (this.timer) {
      this.held.push(data)
      return
    }
    const wait = PACE_MS - (performance.now() - this.lastSentAt)
    if (this.keyed || wait <= 0) return this.emit(data)
    this.held.push(data)
    this.timer = setTimeout(() => this.flush(), wait)
  }

  /** Sends what is held now: before any other frame, so the order stays. */
  flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    const held = this.held.splice(0)
    if (held.length > 0) this.emit(held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held))
  }

  private emit(data: Buffer): void {
    this.lastSentAt = performance.now()
    this.keyed = false
    this.send(data)
  }
}
