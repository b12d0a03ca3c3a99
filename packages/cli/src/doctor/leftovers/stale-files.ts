import { readdir, readFile, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { atomicWriteDirs, escapeRegExp, LOCK_STALE_MS, statIfExists, tempFileWriter, withFileLock, writeLocks } from '@svc/core'
import { alive } from '@svc/protocol'
import type { Leftover, LeftoverFinder } from './leftover.js'

/** A file that is a leftover while `stale` says so, checked again right before it goes. */
function staleFile(kind: string, path: string, why: string, stale: () => Promise<boolean>, remove = () => unlink(path)): Leftover {
  return { kind, what: path, why, namedByRecords: false, stillLeftover: stale, remove: async () => void (await remove().catch(ignoreMissing)) }
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error
}

/** The daemon's write locks older than lockfile's own staleness bound: their writer died (any lock takes one write). */
async function writeLockLeftovers(locks: string[]): Promise<Leftover[]> {
  const stale = async (path: string) => {
    const stats = await statIfExists(path)
    return stats !== undefined && Date.now() - stats.mtimeMs > LOCK_STALE_MS
  }
  const found = await Promise.all(locks.map(async (path) => ((await stale(path)) ? path : undefined)))
  return found
    .filter((path): path is string => path !== undefined)
    .map((path) => staleFile('stale lock', path, `held more than ${LOCK_STALE_MS / 1000} s: its writer died`, () => stale(path)))
}

const pidIn = async (path: string) => Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10)

/**
 * daemon.lock naming a process that is gone (a killed daemon; the next start takes it
 * over anyway). Removed as a starting daemon would: under the takeover lock, and only if
 * it still names the same dead process.
 */
async function daemonLockLeftover(lock: string): Promise<Leftover[]> {
  const holder = await pidIn(lock)
  if (!Number.isInteger(holder) || alive(holder)) return []
  const stale = async () => (await pidIn(lock)) === holder && !alive(holder)
  const remove = () => withFileLock(`${lock}.takeover`, async () => void ((await stale()) && (await unlink(lock))))
  return [staleFile('stale lock', lock, `names pid ${holder}, which is gone`, stale, remove)]
}

/** `.<file>.<pid>.<hex>.tmp` of durable writes (and daemon.lock's own staging file) whose writer is gone. */
async function tempFileLeftovers(dirs: string[], lock: string): Promise<Leftover[]> {
  const found: Leftover[] = []
  const lockStaging = new RegExp(`^${escapeRegExp(basename(lock))}\\.(\\d+)\\.[0-9a-f]{8}$`)
  for (const dir of dirs) {
    for (const name of await readdir(dir).catch(() => [])) {
      const pid = tempFileWriter(name) ?? (dir === dirname(lock) ? Number(lockStaging.exec(name)?.[1]) : undefined)
      if (pid === undefined || Number.isNaN(pid) || alive(pid)) continue
      const path = join(dir, name)
      found.push(staleFile('temp file', path, `its writer (pid ${pid}) is gone`, async () => (await statIfExists(path)) !== undefined && !alive(pid)))
    }
  }
  return found
}

export const staleFiles: LeftoverFinder = async ({ paths }) => [
  ...(await writeLockLeftovers(writeLocks(paths))),
  ...(await daemonLockLeftover(paths.lock)),
  ...(await tempFileLeftovers(atomicWriteDirs(paths), paths.lock)),
]
