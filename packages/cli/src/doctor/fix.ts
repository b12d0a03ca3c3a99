import { setTimeout as sleep } from 'node:timers/promises'
import type { ServicePaths } from '@svc/protocol'
import type { Leftover } from './leftovers/leftover.js'
import { readNamed } from './leftovers/named.js'

/**
 * With the daemon running, how long a leftover must have been seen unnamed before it
 * goes. Every piece a create makes is named by its intent before it exists; the rest
 * (a new tab's tmux session, an archive's moved worktree) are made a moment before their
 * record is saved: seen unnamed at the scan and still unnamed this much later, at the
 * removal, they are no work in flight.
 */
export const SETTLE_MS = 2_000

/** What --fix did with one leftover. */
export interface FixResult {
  /** `<kind> <what>`. */
  what: string
  /** `named`: a record names it again (or it went by itself) by the time of removal, so it was left alone. */
  result: 'removed' | 'kept' | 'named'
  /** Why it was kept. */
  why?: string
}

/**
 * Removes the leftovers that hold no work, one at a time, each only if the records read
 * again right before still name nothing of it; says what it kept and why.
 */
export async function fix(paths: ServicePaths, found: Leftover[], scannedAt: number, daemonRunning: boolean): Promise<FixResult[]> {
  if (daemonRunning && found.length > 0) await sleep(Math.max(0, scannedAt + SETTLE_MS - Date.now()))
  const results: FixResult[] = []
  for (const leftover of found) results.push({ what: `${leftover.kind} ${leftover.what}`, ...(await fixOne(paths, leftover)) })
  return results
}

async function fixOne(paths: ServicePaths, leftover: Leftover): Promise<Omit<FixResult, 'what'>> {
  const keep = (why: string) => ({ result: 'kept' as const, why: leftover.byHand ? `${why}; ${leftover.byHand}` : why })
  try {
    const now = await readNamed(paths)
    if (leftover.namedByRecords && now.unreadable.length > 0) {
      return keep(`record files do not parse (${now.unreadable.join(', ')}), so what they name is unknown`)
    }
    if (!(await leftover.stillLeftover(now))) return { result: 'named' }
    const held = await leftover.holds?.()
    if (held) return keep(`it holds ${held}`)
    await leftover.remove()
    return { result: 'removed' }
  } catch (error) {
    return keep(`removing it failed: ${(error as Error).message}`)
  }
}
