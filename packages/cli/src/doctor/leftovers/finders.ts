import { containers } from './containers.js'
import type { LeftoverFinder } from './leftover.js'
import { remoteLeftovers } from './remote-dirs.js'
import { staleFiles } from './stale-files.js'
import { tmuxSessions } from './tmux-sessions.js'
import { worktrees } from './worktrees.js'

/** Every kind of leftover doctor looks for, in the order it reports them; a backend that makes things of its own adds a finder. */
export const LEFTOVER_FINDERS: LeftoverFinder[] = [tmuxSessions, worktrees, remoteLeftovers, containers, staleFiles]
