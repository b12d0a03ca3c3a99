/** Runs submitted work one at a time, in submission order. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work)
    this.tail = result.catch(() => {})
    return result
  }

  /** Resolves once everything submitted so far has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => {})
  }
}
