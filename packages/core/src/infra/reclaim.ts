import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { ServicePaths } from '@svc/protocol'
import { removeLeftoverTempFiles } from './durable.js'

/** Every directory durable.ts writes into: a file there is replaced through a temp file beside it. */
export function atomicWriteDirs(paths: ServicePaths): string[] {
  return [paths.home, paths.sessionRecords, paths.creating, paths.handoffs]
}

/** The locks the daemon takes with `lockfile` besides its singleton lock: held for one write (or one takeover) at a time. */
export function writeLocks(paths: ServicePaths): string[] {
  return [`${paths.tasks}.lock`, `${paths.config}.lock`, `${paths.lock}.takeover`]
}

export interface Reclaimed {
  locks: string[]
  tempFiles: string[]
}

/**
 * Run once at start, with the singleton lock held and before the daemon's first write:
 * the daemon then owns every lock and temp file under SERVICE_HOME, so whatever is there
 * was left by a daemon that died, never a write of this one in progress.
 * A lock left behind would otherwise stall the first write until it is 10 s old, with
 * every other write queued behind it; a temp file would never be cleaned.
 */
export async function reclaimHome(paths: ServicePaths): Promise<Reclaimed> {
  const locks: string[] = []
  for (const lock of writeLocks(paths)) {
    try {
      await unlink(lock)
      locks.push(lock)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  const tempFiles: string[] = []
  for (const dir of atomicWriteDirs(paths)) {
    tempFiles.push(...(await removeLeftoverTempFiles(dir)).map((name) => join(dir, name)))
  }
  return { locks, tempFiles }
}
