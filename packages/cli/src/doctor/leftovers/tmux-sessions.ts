import { ASSISTANT_TMUX_PREFIX, LOGIN_TMUX_PREFIX, Tmux } from '@svc/core'
import type { LeftoverFinder } from './leftover.js'

/** The daemon's own tmux sessions that no record names (the config assistant, login flows): its while it runs. */
const daemonOwned = (name: string) => name.startsWith(ASSISTANT_TMUX_PREFIX) || name.startsWith(LOGIN_TMUX_PREFIX)

/** tmux sessions on the daemon's private server (everything there is svc's) that no session record names. */
export const tmuxSessions: LeftoverFinder = async ({ paths, named, daemonRunning }) => {
  // Listing and killing run tmux directly: the launcher shell (the poll loop's) never starts, so nothing to close.
  const tmux = new Tmux(paths.tmuxSocket)
  const names = await tmux.sessionNames()
  return names
    .filter((name) => !named.tmuxNames.has(name) && !(daemonRunning && daemonOwned(name)))
    .map((name) => ({
      kind: 'tmux session',
      what: name,
      why: `on ${paths.tmuxSocket}, named by no session`,
      namedByRecords: true,
      stillLeftover: async (now) => !now.tmuxNames.has(name) && (await tmux.sessionNames()).includes(name),
      remove: () => tmux.killSessions([name]),
    }))
}
