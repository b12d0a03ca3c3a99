/** Events a watch task holds while its runs are at max_concurrent_runs; more are dropped and counted. */
export const WATCH_QUEUE_CAPACITY = 100

/**
 * A watch task's events waiting for a run slot, and the drainer that turns them into
 * runs one at a time whenever `hasSlot` allows. Overflow and what is left at stop are
 * reported to `dropped`.
 */
export class WatchQueue {
  private readonly events: string[] = []
  private stopped = false
  private wake: (() => void) | undefined
  private readonly drained: Promise<void>

  constructor(
    private readonly hasSlot: () => boolean,
    private readonly run: (event: string) => Promise<void>,
    private readonly dropped: (count: number) => void,
    private readonly capacity = WATCH_QUEUE_CAPACITY,
  ) {
    this.drained = this.drain()
  }

  push(event: string): void {
    if (this.stopped) return
    if (this.events.length >= this.capacity) return this.dropped(1)
    this.events.push(event)
    this.poke()
  }

  /** A slot may have opened (a run ended). */
  poke(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  /** Stops taking events; resolves once the run in progress (if any) has returned. */
  async stop(): Promise<void> {
    this.stopped = true
    this.poke()
    await this.drained
    const left = this.events.splice(0).length
    if (left > 0) this.dropped(left)
  }

  private async drain(): Promise<void> {
    for (;;) {
      while (!this.stopped && !(this.events.length > 0 && this.hasSlot())) {
        await new Promise<void>((resolve) => (this.wake = resolve))
      }
      if (this.stopped) return
      // A failed run is logged and recorded by `run` itself; the queue moves on.
      await this.run(this.events.shift() as string).catch(() => {})
    }
  }
}
