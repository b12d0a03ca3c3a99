/** Wall-clock time, behind a seam so tests can start the daemon at a chosen instant. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/**
 * A clock that starts at `start` and then advances in real time. Timers stay real: a
 * scheduler that arms a timer for "the next minute boundary" on this clock fires after
 * the real remaining interval, so tests exercise the real scheduling path quickly.
 */
export function shiftedClock(start: Date): Clock {
  const offset = start.getTime() - Date.now()
  return { now: () => new Date(Date.now() + offset) }
}
