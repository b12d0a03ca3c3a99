/** How long a PauseStatusPoll lease lasts unless renewed by calling again. */
export const LEASE_MS = 3_000

/**
 * Poll-pause leases: while a session has a live one, a person is at its terminal, so the
 * observer does not read the pane's changes as the agent working, and deliveries
 * deferred while attached wait. Each holder renews and ends only its own lease.
 */
export class Leases {
  /** session id → holder → expiry (ms since the epoch; Infinity while a stream is connected). */
  private readonly held = new Map<string, Map<string, number>>()

  hold(id: string, holder: string, until: number): void {
    const holders = this.held.get(id) ?? new Map<string, number>()
    holders.set(holder, until)
    this.held.set(id, holders)
  }

  release(id: string, holder: string): void {
    const holders = this.held.get(id)
    holders?.delete(holder)
    if (holders?.size === 0) this.held.delete(id)
  }

  live(id: string, now = Date.now()): boolean {
    const holders = this.held.get(id)
    if (!holders) return false
    for (const [holder, until] of holders) if (until <= now) holders.delete(holder)
    if (holders.size === 0) this.held.delete(id)
    return holders.size > 0
  }

}
