import { decodeEnvelope, PREVIEW_AUTH_PATH, previewAuthPath, webtabPath, type PreviewAuthAnswer, type ServicePaths } from '@svc/protocol'
import { callDaemon } from '../call.js'
import { connect } from '../daemon-process.js'
import { awayDaemon } from '../daemon-target.js'
import { loginUrl, tcpOffMessage } from './web.js'

/** Where a browser on this machine opens a proxied web or editor tab. */
export interface TabUrls {
  /** The same-origin mirror on the TCP listener, with the token login; undefined while that listener is off. */
  mirror?: string
  /** The tab's own preview origin; undefined while the preview listener is off. */
  preview?: string
}

export async function tabUrls(paths: ServicePaths, sessionId: string, tabId: string, path = '/'): Promise<TabUrls> {
  const { listeners } = await callDaemon(paths, 'Health')
  const mirror = await loginUrl(paths, listeners, `${webtabPath(sessionId, tabId)}${path.slice(1)}`)
  let preview: string | undefined
  // Preview origins are on the daemon's own loopback: a browser here reaches them only on its machine.
  if (listeners.preview_bound && !awayDaemon()) {
    const client = await connect(paths)
    const { status, text } = await client.raw('GET', previewAuthPath(sessionId, tabId))
    const { origin } = decodeEnvelope<PreviewAuthAnswer>(PREVIEW_AUTH_PATH, status, text)
    if (origin) preview = `${origin}${path}`
  }
  return { ...(mirror ? { mirror } : {}), ...(preview ? { preview } : {}) }
}

/** What a person reads: the URL to open first, the other way, and how to turn on what is off. */
export function describeTabUrls(urls: TabUrls, tcpError?: string): string[] {
  const lines: string[] = []
  if (urls.preview) lines.push(`open: ${urls.preview}`, '  (its own origin: absolute asset paths and hot reload work; this machine only)')
  if (urls.mirror) {
    lines.push(`${urls.preview ? 'or' : 'open'}: ${urls.mirror}`, '  (same-origin mirror under /v1/webtab/: relative URLs only; the URL carries the token, keep it private)')
  } else {
    lines.push(`no mirror URL: ${tcpOffMessage(tcpError)}`)
  }
  if (!urls.preview) {
    lines.push('for dev servers that use absolute paths (Vite, Next.js...), turn on preview origins: svc config set network.preview_listen_addr 127.0.0.1:8444')
  }
  return lines
}
