import lockfile from 'lockfile'

const options: lockfile.Options = {
  // A writer holds the lock for one read-modify-write; older than this means it died.
  stale: 10_000,
  wait: 15_000,
  pollPeriod: 20,
}

function lock(path: string): Promise<void> {
  return new Promise((resolve, reject) => lockfile.lock(path, options, (error) => (error ? reject(error) : resolve())))
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
