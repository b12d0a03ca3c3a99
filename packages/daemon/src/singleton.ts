import { readFile, writeFile } from 'node:fs/promises'
import lockfile from 'lockfile'

export class AlreadyRunning extends Error {}

function createLock(path: string): Promise<void> {
  return new Promise((resolve, reject) => lockfile.lock(path, {}, (error) => (error ? reject(error) : resolve())))
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export interface DaemonLock {
  release(): void
}

/**
 * The singleton lock, held for the daemon's life. The holder's pid is written into it,
 * so a lock left by a killed daemon is recognised as stale and taken over.
 */
export async function acquireDaemonLock(path: string, home: string): Promise<DaemonLock> {
  for (let attempt = 0; ; attempt++) {
    try {
      await createLock(path)
      await writeFile(path, `${process.pid}\n`)
      return { release: () => lockfile.unlockSync(path) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error
    }
    const holder = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10)
    if (Number.isInteger(holder) && holder !== process.pid && alive(holder)) {
      throw new AlreadyRunning(
        `another svc daemon (pid ${holder}) is already running on ${home}; ` +
          `stop it with "svc daemon stop", or remove ${path} if that process is not an svc daemon`,
      )
    }
    lockfile.unlockSync(path)
  }
}
