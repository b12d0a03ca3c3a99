import lockfile from 'lockfile'

/**
 * Fresh for every lock: lockfile writes into the options it is given (the first
 * attempt's start time, which bounds the wait), so shared options would make every
 * contended lock after the first `wait` fail at once.
 */
/** A writer holds a lock for one read-modify-write; a lock older than this was left by one that died. */
export const LOCK_STALE_MS = 10_000

function lockOptions(): lockfile.Options {
  return {
    stale: LOCK_STALE_MS,
    wait: 15_000,
    pollPeriod: 20,
  }
}

function lock(path: string): Promise<void> {
  return new Promise((resolve, reject) => lockfile.lock(path, lockOptions(), (error) => (error ? reject(error) : resolve())))
}

function unlock(path: string): Promise<void> {
  return new Promise((resolve, reject) => lockfile.unlock(path, (error) => (error ? reject(error) : resolve())))
}

/** Runs `work` while holding the `<path>` lock file, shared with every other process. */
export async function withFileLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  await lock(path)
  try {
    return await work()
  } finally {
    await unlock(path)
  }
}
