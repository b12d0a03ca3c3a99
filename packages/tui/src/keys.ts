import type { Session } from './state/types.js'

/** The main screen's keys, in the order the footer and the help list them. */
export const MAIN_KEYS: ReadonlyArray<{ key: string; label: string; help: string }> = [
  { key: 'enter', label: 'attach', help: 'attach to the agent (tmux: Ctrl-b d comes back; a hook session: Ctrl-\\)' },
  { key: 'n', label: 'new', help: 'new session: project, title, program, account, first prompt' },
  { key: 'p', label: 'prompt', help: 'send a prompt and show whether it was delivered' },
  { key: 't', label: 'tabs', help: "the session's tabs: attach to one, or open a shell or a process" },
  { key: 'a', label: 'archive', help: 'archive: stop the agent, move the worktree to the archive' },
  { key: 'r', label: 'restore', help: 'restore an archived, lost or dead session' },
  { key: 'K', label: 'kill', help: 'kill: delete the session, its worktree and branch (asks first)' },
  { key: 'h', label: 'hand off', help: 'hand the work to another agent or account, even mid-work' },
  { key: 'T', label: 'tasks', help: 'tasks: next run and health; enable, disable, trigger, add' },
  { key: 'C', label: 'config', help: 'the config assistant: an agent that explains settings and changes them (tmux; Ctrl-b d comes back)' },
  { key: '/', label: 'filter', help: 'filter by title, project, branch, program or state (esc clears)' },
  { key: 's', label: 'sort', help: 'sessions that need you first, or grouped by project only' },
  { key: '?', label: 'help', help: 'this help' },
  { key: 'q', label: 'quit', help: 'quit (the daemon and the agents keep running)' },
]

export const MOVE_HELP = '↑/↓ or k/j move, PgUp/PgDn page'

/**
 * A hook session's tabs run in its remote's tmux: they are attached through the daemon's
 * terminal stream, where Ctrl-\ (not tmux's Ctrl-b d) comes back.
 */
/** Whether attaching goes through the daemon's stream: a daemon on another machine, or a session running elsewhere (its tmux is the remote's). */
export const viaStream = (session: Session | undefined, local: boolean): boolean => !local || (session !== undefined && session.backend !== 'local')

/** Said beside attach where it goes through the stream. */
export const STREAM_DETACH = 'Ctrl-\\ back'
