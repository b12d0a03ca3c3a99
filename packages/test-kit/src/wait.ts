import { setTimeout as sleep } from 'node:timers/promises'
import { inspect } from 'node:util'

/** Running: not ended and not a zombie (an orphan's end may never be reaped in a container). */
export { alive } from '@svc/protocol'

/**
 * Thrown from a waitFor probe, ends the wait at once with `reason`: for a failure no
 * later look can mend (a feed that has ended), where waiting out the deadline only slows
 * the failing test down.
 */
export class GiveUp extends Error {
  constructor(readonly reason: Error) {
    super(reason.message)
    this.name = 'GiveUp'
  }
}

/**
 * Asks `probe` until it answers (anything but undefined or false). A probe that throws
 * has not seen it yet (a file half written, a reply not there yet) and is asked again;
 * at the deadline the wait fails with the last error a probe threw, if any. `GiveUp`
 * ends the wait at once.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const value = await probe()
      if (value !== undefined && value !== false) return value
    } catch (error) {
      if (error instanceof GiveUp) throw error.reason
      lastError = error
    }
    if (Date.now() > deadline) {
      if (lastError === undefined) throw new Error(`condition not met in ${timeoutMs} ms`)
      const detail = lastError instanceof Error ? lastError.message : inspect(lastError)
      throw new Error(`condition not met in ${timeoutMs} ms; the probe last threw: ${detail}`, { cause: lastError })
    }
    await sleep(25)
  }
}
