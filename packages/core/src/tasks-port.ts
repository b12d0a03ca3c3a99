/**
 * What the task engine needs from sessions. Sessions implement it; tasks never touch
 * tmux or git themselves, and sessions never read the task store except through
 * `TaskGuard`.
 */
export interface SessionPort {
  /** Creates a fresh session for one task run, titled uniquely from `title_base`, and delivers `prompt`. */
  spawn(request: { title_base: string; repo_path: string; program?: string; prompt: string }): Promise<{
    id: string
    title: string
  }>
  /** Delivers `prompt` into the session titled `title` in the repository, creating it when missing. */
  deliver(request: { title: string; repo_path: string; program?: string; prompt: string }): Promise<'started' | 'sent'>
  archive(id: string): Promise<void>
  kill(id: string): Promise<void>
  /** Whether the session is ready: it settled after its last prompt and sits idle. */
  settled(id: string): boolean
  /** The lifecycle of the session titled `title` in repository `repoId`, for the archived-target refusal. */
  targetState(title: string, repoId: string): 'missing' | 'live' | 'archived' | 'archiving'
  /**
   * Calls `listener` once for a session that settled back to ready after running, and
   * when a session is removed, so runs can complete and on_complete can apply.
   */
  onSettled(listener: (id: string, how: 'settled' | 'removed') => void): void
}

/** What sessions ask of the task engine before archiving. */
export interface TaskGuard {
  /** Ids of enabled tasks whose target_session is the session titled `title` in repository `repoId`. */
  enabledTargeting(title: string, repoId: string): string[]
}
