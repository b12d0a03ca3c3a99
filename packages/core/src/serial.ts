/** Runs submitted work one at a time, in submission order. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work)
    // The caller sees a failure through `result`; the queue only needs to know it finished.
    this.tail = result.catch(() => {})
    return result
  }

  /** Resolves once everything submitted so far has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => {})
  }
}

/** One SerialQueue per key: work on one key is ordered, different keys run in parallel. */
export class KeyedQueue {
  private readonly queues = new Map<string, { queue: SerialQueue; pending: number }>()

  /** `drained` is told each key whose work has all finished. */
  constructor(private readonly drained?: (key: string) => void) {}

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const entry = this.queues.get(key) ?? { queue: new SerialQueue(), pending: 0 }
    this.queues.set(key, entry)
    entry.pending++
    return entry.queue.run(work).finally(() => {
      if (--entry.pending > 0) return
      this.queues.delete(key)
      this.drained?.(key)
    })
  }

  /** Whether work for `key` is queued or running. */
  busy(key: string): boolean {
    return this.queues.has(key)
  }
}
