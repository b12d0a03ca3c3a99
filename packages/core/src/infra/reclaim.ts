import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { ServicePaths } from '@svc/protocol'
import { removeLeftoverTempFiles } from './durable.js'

export interface Reclaimed {
  locks: string[]
  tempFiles: string[]
}

/**
 * Run once at start, with the singleton lock held: the daemon then owns every lock and
 * temp file under SERVICE_HOME, so whatever is there was left by a daemon that died.
 * A lock left behind would otherwise stall the first write until it is 10 s old, with
 * every other write queued behind it; a temp file would never be cleaned.
 */
export async function reclaimHome(paths: ServicePaths): Promise<Reclaimed> {
  const locks: string[] = []
  for (const lock of [`${paths.tasks}.lock`, `${paths.config}.lock`, `${paths.lock}.takeover`]) {
    try {
      await unlink(lock)
      locks.push(lock)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  const tempFiles: string[] = []
  for (const dir of [paths.home, join(paths.home, 'sessions'), join(paths.home, 'creating')]) {
    tempFiles.push(...(await removeLeftoverTempFiles(dir)).map((name) => join(dir, name)))
  }
  return { locks, tempFiles }
}
