/** Automatic recovery of a lost session: a fixed attempt budget with doubling backoff. */
export const RECOVERY_ATTEMPTS = 6
const BACKOFF_CAP_MS = 5 * 60_000

export interface RecoveryState {
  /** Attempts that failed so far. */
  failures: number
  /** When the next attempt may start. */
  nextAt: number
  /** An attempt respawned the agent; a later poll decides whether it took. */
  awaitingCheck: boolean
  /** When the attempt respawned the agent. */
  spawnedAt: number
}

/**
 * An attempt counts as a success once a poll sees the pane alive this long after the
 * respawn, so a program that dies while starting up is not mistaken for a recovery.
 */
export function survivalMs(pollIntervalMs: number): number {
  return Math.max(1_000, 2 * pollIntervalMs)
}

export function backoffMs(baseMs: number, failures: number): number {
  return Math.min(baseMs * 2 ** failures, BACKOFF_CAP_MS)
}

/** One line, at most 512 characters: the form `lost_restore_failure.error` is stored in. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 512)
}
