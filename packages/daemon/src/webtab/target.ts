import { quote, TabKind } from '@svc/protocol'
import { editorCookies, isLoopbackUrl, memoized, type Sessions } from '@svc/core'
import { HttpError } from '../http-error.js'

/** Where a web tab's requests go, and what the proxy adds to them. */
export interface WebTarget {
  /** The upstream origin, `http://localhost:5173`: tab paths are rooted there. */
  origin: string
  /** Cookies only the daemon holds (an editor's password), added going up. */
  cookies?: string
}

const originOf = memoized((url: string) => new URL(url).origin)

/** Whether the proxy serves a tab at all: the one predicate behind `web_proxied` and the proxy. */
export function proxiedUrl(kind: number, url: string | undefined): url is string {
  return url !== undefined && (kind === TabKind.editor || (kind === TabKind.web && isLoopbackUrl(url)))
}

/** The target of `/v1/webtab/{session_id}/{tab_id}/`, or the 404 or 400 that says why there is none. */
export function webTarget(sessions: Sessions, sessionId: string, tabId: string): WebTarget {
  const tab = sessions.tabById(sessionId, tabId)
  if (!tab) throw new HttpError(404, `no web tab ${quote(tabId)} in session ${quote(sessionId)} (it may have been closed)`)
  if (tab.kind !== TabKind.web && tab.kind !== TabKind.editor) {
    throw new HttpError(400, `tab ${quote(tab.name)} is not a web or editor tab; only those are proxied`)
  }
  if (!proxiedUrl(tab.kind, tab.url)) throw new HttpError(400, 'external URLs are framed directly, not proxied')
  const origin = originOf(tab.url)
  return tab.kind === TabKind.editor ? { origin, cookies: editorCookies(sessions.editorSecret.editorPassword(tab.id)) } : { origin }
}
