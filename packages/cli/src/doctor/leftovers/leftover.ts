import type { Settings } from '@svc/core'
import type { ServicePaths } from '@svc/protocol'
import type { Named } from './named.js'

/** Something svc made that nothing names any more. */
export interface Leftover {
  /** `tmux session`, `worktree`, `branch`, … */
  kind: string
  /** Its name or path. */
  what: string
  /** Why it counts as left over. */
  why: string
  /** Removing it needs the records to be readable (it is a session's piece, not a file of the daemon's). */
  namedByRecords: boolean
  /** The work it holds, which --fix keeps it for; undefined when it holds none. Asked again right before a removal. */
  holds?(): Promise<string | undefined>
  /** Whether it is still there and still named by nothing, with the records as read just now. */
  stillLeftover(named: Named): Promise<boolean>
  remove(): Promise<void>
  /** How to remove it by hand, when --fix keeps it. */
  byHand?: string
}

/** What the finders look at. */
export interface Scope {
  paths: ServicePaths
  named: Named
  settings: Settings
  /** Repositories svc works in: registered projects and those records name. */
  repos: string[]
  daemonRunning: boolean
}

/**
 * One kind of leftover. Doctor runs each in turn (finders.ts); a backend that makes
 * things of its own (containers, shared ssh masters) adds a finder there.
 */
export type LeftoverFinder = (scope: Scope) => Promise<Leftover[]>
