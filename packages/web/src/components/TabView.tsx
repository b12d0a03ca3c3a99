import { streamPath, webtabPath } from '@svc/protocol/browser'
import { useEffect, useState } from 'react'
import { api, type Session } from '../api'
import { Terminal } from './Terminal'

type Tab = Session['tabs'][number]

const FRAME = 'min-h-64 w-full flex-1 rounded-md border border-line bg-white'

/**
 * A URL the browser would still send to its own machine after canonicalizing it: never
 * framed directly, since "loopback" on the viewer's machine is not the agent's.
 */
export function reachesViewerLoopback(url: string): boolean {
  let host: string
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  } catch {
    return true
  }
  return host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '0.0.0.0' || host === '::1' || /^::ffff:(127\.|7f)/.test(host)
}

/** A terminal tab streams; a web or editor tab is framed through the daemon's proxy (or directly, for an external URL). */
export function TabView({ session, tab }: { session: Session; tab: Tab }) {
  if (tab.kind_name === 'web' || tab.kind_name === 'editor') {
    if (tab.web_proxied === false) {
      if (!tab.url || reachesViewerLoopback(tab.url)) return <p className="text-sm text-danger">This tab's address ({tab.url}) is not proxied and would open on your own machine: not shown.</p>
      return <iframe className={FRAME} title={tab.name} src={tab.url} />
    }
    return <ProxiedTab session={session} tab={tab} />
  }
  return (
    <Terminal
      key={tab.id ?? tab.name}
      label={`${session.title}: ${tab.name} terminal`}
      path={(since) => streamPath(session.id, { ...(tab.id ? { tabId: tab.id } : {}), ...(since === undefined ? {} : { since }) })}
      endedText="the tab ended"
      unavailableText="the tab's terminal cannot be opened"
    />
  )
}

/**
 * A proxied tab: from its preview origin when this page is viewed on the daemon's own
 * machine (a `*.localhost` origin only resolves there, and there absolute asset paths
 * work), else through the same-origin mirror.
 */
function ProxiedTab({ session, tab }: { session: Session; tab: Tab }) {
  const mirror = webtabPath(session.id, tab.id ?? '')
  const [src, setSrc] = useState<string | undefined>(undefined)
  useEffect(() => {
    if (!reachesViewerLoopback(window.location.href)) return setSrc(mirror)
    void api.previewOrigin(session.id, tab.id ?? '').then(
      (origin) => setSrc(origin ? `${origin}/` : mirror),
      () => setSrc(mirror),
    )
  }, [session.id, tab.id, mirror])
  return src === undefined ? null : <iframe className={FRAME} title={tab.name} src={src} data-testid="web-tab" />
}
