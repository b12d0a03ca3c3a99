export interface StreamOptions {
  /** The session's repository, when `session` is a title shared by several. */
  repoId?: string
  /** The tab's ordinal (0, the agent, by default). */
  tab?: number
  /** The tab's id: wins over `tab` and never falls back. */
  tabId?: string
  /** Replay from this cursor when the ring still holds it. */
  since?: bigint
}

/** The stream's path and query for a session (an id, or a title with `repoId`). */
export function streamPath(session: string, options: StreamOptions = {}): string {
  const query = new URLSearchParams()
  if (options.repoId) query.set('repo_id', options.repoId)
  if (options.tab !== undefined) query.set('tab', String(options.tab))
  if (options.tabId) query.set('tab_id', options.tabId)
  if (options.since !== undefined) query.set('since', String(options.since))
  const search = query.toString()
  return `/v1/sessions/${encodeURIComponent(session)}/stream${search ? `?${search}` : ''}`
}

/**
 * The terminal of an account's running login (`AccountLogin` starts it), on the stream's
 * wire format; served for the web UI beside the catalog.
 */
export function loginStreamPath(agent: string, name: string, since?: bigint): string {
  const search = since === undefined ? '' : `?since=${since}`
  return `/v1/accounts/${encodeURIComponent(agent)}/${encodeURIComponent(name)}/login-stream${search}`
}
