import { createHmac, randomBytes } from 'node:crypto'
import { TabKind } from '@svc/protocol'
import type { Sessions, TabRecord } from '@svc/core'
import { proxiedUrl } from './target.js'

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

/** RFC 4648 base32, lower case, for lengths that are a multiple of 5 bytes (no padding). */
function base32(bytes: Buffer): string {
  let text = ''
  for (let at = 0; at < bytes.length; at += 5) {
    let group = 0n
    for (const byte of bytes.subarray(at, at + 5)) group = (group << 8n) | BigInt(byte)
    for (let shift = 35n; shift >= 0n; shift -= 5n) text += BASE32[Number((group >> shift) & 31n)]
  }
  return text
}

export const PROBE_HOST = 'svcprobe.localhost'
const LABEL = /^svc([a-z2-7]{32})\.localhost$/

export interface TabAddress {
  sessionId: string
  tabId: string
}

/**
 * Per-tab preview origins, `http://svc<label>.localhost:<port>`. The label is the
 * credential: HMAC-SHA256 truncated to 20 bytes (160 bits), keyed per daemon run for web
 * tabs (so every address expires at restart) and by the 0600 editor secret for a
 * session's editor (so its origin, and the editor state the browser keeps for it, stays).
 */
export class PreviewOrigins {
  private readonly bootKey = randomBytes(32)
  private byLabel = new Map<string, TabAddress>()

  constructor(private readonly sessions: Sessions) {}

  label(sessionId: string, tab: TabRecord): string {
    const mac =
      tab.kind === TabKind.editor
        ? this.sessions.editorSecret.derive('editor-origin', sessionId)
        : createHmac('sha256', this.bootKey).update(`tab\0${sessionId}\0${tab.id}`).digest()
    return base32(mac.subarray(0, 20))
  }

  /**
   * The tab's preview origin on `port`, or `""` while the preview listener is off (no
   * port) or when the tab is not proxied; an unknown session or tab is refused.
   */
  originOf(sessionId: string, tabId: string, port: number | undefined): string {
    const tab = this.sessions.tabOf(sessionId, tabId)
    if (port === undefined || !proxiedUrl(tab.kind, tab.url)) return ''
    return `http://svc${this.label(sessionId, tab)}.localhost:${port}`
  }

  /** The tab a preview hostname names, if any tab of this run has that label. */
  find(hostname: string): TabAddress | undefined {
    const label = LABEL.exec(hostname)?.[1]
    if (label === undefined) return undefined
    // Tabs come and go: a label not seen yet is looked for again among today's tabs.
    if (!this.byLabel.has(label)) this.byLabel = this.labels()
    return this.byLabel.get(label)
  }

  private labels(): Map<string, TabAddress> {
    const labels = new Map<string, TabAddress>()
    for (const { sessionId, tab } of this.sessions.allTabs()) {
      if (proxiedUrl(tab.kind, tab.url)) labels.set(this.label(sessionId, tab), { sessionId, tabId: tab.id })
    }
    return labels
  }
}
