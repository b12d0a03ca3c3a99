import { Refused } from '../errors.js'
import { stateOf, type SessionRecord } from './record.js'
import type { SessionRef, SessionTable } from './table.js'

/** Refuses to archive a session that enabled tasks target or that is archived already. */
function refuseArchiving(record: SessionRecord, targetedBy: (record: SessionRecord) => string[]): void {
  const targeting = targetedBy(record)
  if (targeting.length > 0) {
    throw new Refused(`enabled task(s) ${targeting.join(', ')} target session "${record.title}"; disable them before archiving it`)
  }
  if (stateOf(record) === 'archived') throw new Refused(`session "${record.title}" is already archived`)
}

/**
 * An archive, whichever runtime does it: refused before any mutation, and marked so no
 * task is enabled on the session while it waits for its queue; checked again there (an
 * archive or a task enabled meanwhile).
 */
export function archiveAlone<T>(
  table: SessionTable,
  ref: SessionRef,
  targetedBy: (record: SessionRecord) => string[],
  work: (record: SessionRecord) => Promise<T>,
): Promise<T> {
  const record = table.find(ref)
  refuseArchiving(record, targetedBy)
  table.archiving.add(record.id)
  const archived = table.operate(ref, async (current) => {
    refuseArchiving(current, targetedBy)
    // An archive queued ahead of this one cleared the mark as it finished.
    table.archiving.add(current.id)
    return work(current)
  })
  return archived.finally(() => table.archiving.delete(record.id))
}

/** RestoreSession's `expected_daemon_boot_id`: a restore meant for an earlier daemon is refused. */
export function refuseOtherBoot(expected: string | undefined, bootId: string): void {
  if (expected && expected !== bootId) {
    throw new Refused(`the daemon restarted (boot id ${bootId}, expected ${expected}); refresh with Snapshot and retry`)
  }
}

/** Which states RestoreSession takes without force_reap. */
export function refuseRestoring(record: SessionRecord, forceReap: boolean | undefined): void {
  const state = stateOf(record)
  if (state !== 'archived' && state !== 'lost' && state !== 'dead' && !forceReap) {
    throw new Refused(`session "${record.title}" is ${state ?? 'busy'}; pass force_reap to replace its runtime`)
  }
}

/** RestoreArchived takes only an archived session. */
export function refuseUnarchived(record: SessionRecord): void {
  if (stateOf(record) !== 'archived') throw new Refused(`session "${record.title}" is not archived`)
}
