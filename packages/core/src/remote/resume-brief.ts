import { SNAPSHOT_MESSAGE } from '@svc/protocol'
import type { ArchivedPush } from '../sessions/record.js'

/**
 * The first prompt of a hook session's agent once it is restored on a new remote: the
 * earlier agent's conversation stayed with the remote that was torn down, so the new one
 * is told where the work is and what it was for, and to pick it up from git.
 */
export function resumeBrief({ branch, pushed, goal }: { branch: string; pushed: ArchivedPush | undefined; goal: string | undefined }): string {
  const at = pushed ? ` at ${pushed.head.slice(0, 12)}` : ''
  const snapshot = pushed?.snapshot
    ? ` The last commit, "${SNAPSHOT_MESSAGE}", holds what was not committed when it was archived.`
    : ''
  const why = goal ? ` Its first prompt was: "${goal.replace(/\s+/g, ' ').trim()}".` : ''
  return (
    `This session was archived and is now restored on a new machine; the earlier conversation is not available. ` +
    `Its work is on branch ${branch}, checked out here${at}.${snapshot}${why} ` +
    'Read the recent git log and changes to see where the work stands, then carry on with it.'
  )
}
