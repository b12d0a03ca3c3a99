import { randomBytes } from 'node:crypto'
import { readFileSync, unlinkSync } from 'node:fs'
import { link, readFile, unlink, writeFile } from 'node:fs/promises'
import { withFileLock } from '@svc/core'
import { alive } from '@svc/protocol'

export class AlreadyRunning extends Error {}

/** The lock file's text, or undefined when it is gone. */
function readHolder(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
}

/** The live daemon a lock file names; an empty, unreadable or dead holder is stale. */
function liveHolder(text: string): number | undefined {
  const pid = Number.parseInt(text, 10)
  return Number.isInteger(pid) && pid !== process.pid && alive(pid) ? pid : undefined
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error
}

export interface DaemonLock {
  release(): void
}

/**
 * The singleton lock, held for the daemon's life. It appears with our pid already in it:
 * the pid goes into a temp file that is then hard-linked to the lock path, so no starter
 * ever sees an empty lock, and EEXIST means someone holds it. A lock whose holder is dead
 * (a killed daemon) is removed under a short takeover lock, and only if it still names
 * that same holder: two starters that both saw it stale cannot remove each other's lock.
 */
export async function acquireDaemonLock(path: string, home: string): Promise<DaemonLock> {
  const mine = `${process.pid}\n`
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`
  await writeFile(temp, mine, { flag: 'wx', mode: 0o600 })
  try {
    for (;;) {
      try {
        await link(temp, path)
        return { release: () => releaseLock(path, mine) }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      const seen = await readHolder(path)
      if (seen === undefined) continue
      const holder = liveHolder(seen)
      if (holder !== undefined) {
        throw new AlreadyRunning(
          `another svc daemon (pid ${holder}) is already running on ${home}; ` +
            `stop it with "svc daemon stop", or remove ${path} if that process is not an svc daemon`,
        )
      }
      await withFileLock(`${path}.takeover`, async () => {
        const now = await readHolder(path)
        if (now === seen && liveHolder(now) === undefined) await unlink(path).catch(ignoreMissing)
      })
    }
  } finally {
    await unlink(temp).catch(ignoreMissing)
  }
}

/** Synchronous, for exit paths; a lock that no longer names us is not ours to remove. */
function releaseLock(path: string, mine: string): void {
  try {
    if (readFileSync(path, 'utf8') === mine) unlinkSync(path)
  } catch (error) {
    ignoreMissing(error as NodeJS.ErrnoException)
  }
}
