/** How much recent output a terminal keeps for subscribers that resume with `since`. */
export const RING_BYTES = 1024 * 1024

/**
 * The last `capacity` bytes of a terminal's output, addressed by cursor: the count of
 * output bytes since the terminal started.
 */
export class ReplayRing {
  private chunks: Buffer[] = []
  private held = 0
  private end = 0

  constructor(private readonly capacity = RING_BYTES) {}

  /** The cursor after the last byte written. */
  get cursor(): number {
    return this.end
  }

  push(chunk: Buffer): void {
    this.chunks.push(chunk)
    this.held += chunk.length
    this.end += chunk.length
    while (this.held > this.capacity) {
      const first = this.chunks[0] as Buffer
      const excess = this.held - this.capacity
      if (first.length <= excess) {
        this.chunks.shift()
        this.held -= first.length
      } else {
        this.chunks[0] = first.subarray(excess)
        this.held -= excess
      }
    }
  }

  /** The output from `cursor` on, or undefined when the ring no longer (or never) held it. */
  since(cursor: number): Buffer | undefined {
    const start = this.end - this.held
    if (cursor < start || cursor > this.end) return undefined
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)]
    return (this.chunks[0] ?? Buffer.alloc(0)).subarray(cursor - start)
  }
}
