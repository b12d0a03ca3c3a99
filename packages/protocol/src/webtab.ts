/** The same-origin mirror of web tabs: `ANY /v1/webtab/{session_id}/{tab_id}/{rest}`. */
export const WEBTAB_PREFIX = '/v1/webtab'

/** The mirror path of a tab, with the slash the proxy redirects to. */
export function webtabPath(sessionId: string, tabId: string): string {
  return `${WEBTAB_PREFIX}/${encodeURIComponent(sessionId)}/${encodeURIComponent(tabId)}/`
}

/**
 * `GET /v1/preview-auth?session=&tab=` → the envelope of `{origin}`: a tab's preview
 * origin, `""` when the preview listener is off or the tab has none.
 */
export const PREVIEW_AUTH_PATH = '/v1/preview-auth'

/** The preview-auth request for one tab, by session id and stable tab id. */
export function previewAuthPath(sessionId: string, tabId: string): string {
  return `${PREVIEW_AUTH_PATH}?${new URLSearchParams({ session: sessionId, tab: tabId }).toString()}`
}

export interface PreviewAuthAnswer {
  origin: string
}

/** What the preview listener's probe page (host `svcprobe.localhost`) posts to the page that framed it. */
export const PREVIEW_PROBE_MESSAGE = 'svc-preview-origin-ok'
