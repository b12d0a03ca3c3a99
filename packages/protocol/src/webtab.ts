/** The same-origin mirror of web tabs: `ANY /v1/webtab/{session_id}/{tab_id}/{rest}`. */
export const WEBTAB_PREFIX = '/v1/webtab'

/** The mirror path of a tab, with the slash the proxy redirects to. */
export function webtabPath(sessionId: string, tabId: string): string {
  return `${WEBTAB_PREFIX}/${encodeURIComponent(sessionId)}/${encodeURIComponent(tabId)}/`
}

/** `GET /v1/preview-auth?session=&tab=` → `{origin}`: a tab's preview origin, `""` when it has none. */
export const PREVIEW_AUTH_PATH = '/v1/preview-auth'

export interface PreviewAuthAnswer {
  origin: string
}

/** What the preview listener's probe page (host `svcprobe.localhost`) posts to the page that framed it. */
export const PREVIEW_PROBE_MESSAGE = 'svc-preview-origin-ok'
