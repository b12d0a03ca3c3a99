import type { LeftoverFinder } from './leftover.js'
import { remoteLeftovers } from './remote-dirs.js'
import { staleFiles } from './stale-files.js'
import { tmuxSessions } from './tmux-sessions.js'
import { worktrees } from './worktrees.js'

/**
 * Every kind of leftover doctor looks for, in the order it reports them. Containers
 * labelled with this home (the docker backend) and shared ssh-host masters (the ssh
 * backend) belong here as finders of their own once those backends exist.
 */
export const LEFTOVER_FINDERS: LeftoverFinder[] = [tmuxSessions, worktrees, remoteLeftovers, staleFiles]
