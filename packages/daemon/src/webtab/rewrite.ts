import type { IncomingHttpHeaders } from 'node:http'
import { parseCookie, parseSetCookie, stringifyCookie, stringifySetCookie } from 'cookie'
import type { WebTarget } from './target.js'

/**
 * How the browser reaches a tab: under a path of the API origin (the same-origin mirror,
 * `/v1/webtab/{session}/{tab}`, where the daemon's token may ride along), or at the root
 * of its own preview origin.
 */
export type Mount = { mirror: string; token: string; origin?: undefined } | { mirror?: undefined; token?: undefined; origin: string }

/** Query parameters the daemon's token may come in (`?token=` is also a dev server's own, Vite's HMR for one). */
const TOKEN_PARAMS = ['token', 'access_token']

/** One `name=value` pair of a query that carries the daemon's token under one of its names. */
function isDaemonToken(pair: string, token: string): boolean {
  const at = pair.indexOf('=')
  if (at === -1) return false
  try {
    return TOKEN_PARAMS.includes(decodeURIComponent(pair.slice(0, at))) && decodeURIComponent(pair.slice(at + 1).replaceAll('+', ' ')) === token
  } catch {
    return false
  }
}

/**
 * The query string going up (`?…` or `""`) without the daemon's token, and otherwise
 * byte for byte as sent: dev servers read flags such as Vite's `?import` and `?raw`,
 * which re-encoding would change. The same names with other values are the app's.
 */
export function upstreamQuery(search: string, mount: Mount): string {
  if (mount.token === undefined || !search.includes(mount.token)) return search
  const kept = search.slice(1).split('&').filter((pair) => !isDaemonToken(pair, mount.token))
  return kept.length === 0 ? '' : `?${kept.join('&')}`
}

const DAEMON_COOKIE = /^svc_login_/
const PREVIEW_HOST = /^svc[a-z2-7]{32}\.localhost$/

/** The path the upstream sees for a path the browser asked: the mirror's prefix goes. */
function upstreamPath(mount: Mount, path: string): string | undefined {
  if (mount.mirror === undefined) return path
  return path === mount.mirror || path.startsWith(`${mount.mirror}/`) ? path.slice(mount.mirror.length) || '/' : undefined
}

/** A URL of the viewer's page as the upstream would have served it, or undefined when it is not one. */
function asUpstreamUrl(value: string, viewerOrigin: string, mount: Mount, target: WebTarget): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  if (url.origin !== viewerOrigin) return undefined
  const path = upstreamPath(mount, url.pathname)
  if (path === undefined) return undefined
  return `${target.origin}${path}${upstreamQuery(url.search, mount)}`
}

/** `Origin` another preview tab's page sends names that tab's credential: the upstream gets `null`. */
function upstreamOrigin(origin: string, viewerOrigin: string, target: WebTarget): string {
  if (origin === viewerOrigin) return target.origin
  try {
    return PREVIEW_HOST.test(new URL(origin).hostname) ? 'null' : origin
  } catch {
    return origin
  }
}

/**
 * Going up: the daemon's credentials go (`Authorization`, its login cookies; the query
 * token is dropped where the URL is built), the editor's password is added, and the
 * viewer's `Origin` and `Referer` become the upstream's own, so neither the mirror path
 * nor a preview label reaches the dev server, and its same-origin checks still hold.
 */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  viewerOrigin: string,
  mount: Mount,
  target: WebTarget,
): IncomingHttpHeaders {
  const up = { ...headers }
  delete up.authorization
  if (headers.cookie !== undefined || target.cookies !== undefined) {
    const kept = Object.entries(parseCookie(headers.cookie ?? '')).filter(([name]) => !DAEMON_COOKIE.test(name))
    const cookie = [stringifyCookie(Object.fromEntries(kept)), target.cookies ?? ''].filter(Boolean).join('; ')
    if (cookie === '') delete up.cookie
    else up.cookie = cookie
  }
  if (typeof headers.origin === 'string') up.origin = upstreamOrigin(headers.origin, viewerOrigin, target)
  if (typeof headers.referer === 'string') {
    const referer = asUpstreamUrl(headers.referer, viewerOrigin, mount, target)
    if (referer === undefined) delete up.referer
    else up.referer = referer
  }
  return up
}

/** A CSP without `frame-ancestors`: the tab is meant to be framed by the svc clients. */
function withoutFrameAncestors(policy: string): string {
  return policy
    .split(';')
    .filter((directive) => !/^\s*frame-ancestors(\s|$)/i.test(directive))
    .join(';')
    .trim()
}

/** `Location` as the browser must follow it: upstream paths and URLs land back on the mount. */
function viewerLocation(location: string, viewerOrigin: string, mount: Mount, target: WebTarget): string {
  let url: URL
  try {
    url = new URL(location, `${target.origin}/`)
  } catch {
    return location
  }
  // Relative references resolve the same on both sides; another site's URL is left alone.
  const absolute = /^[a-z][a-z0-9+.-]*:|^\/\//i.test(location)
  if (absolute ? url.origin !== target.origin : !location.startsWith('/')) return location
  const path = `${url.pathname}${url.search}${url.hash}`
  return mount.mirror !== undefined ? `${mount.mirror}${path}` : `${viewerOrigin}${path}`
}

/**
 * A cookie the upstream sets, fitted to the mount. Its `Domain` would name the upstream's
 * host, so it goes. Under the mirror its path moves under the tab's prefix, so tabs never
 * share cookies with each other or the API. On a preview origin, framed by a page of
 * another site, only `SameSite=None; Secure; Partitioned` cookies are kept by browsers.
 */
function viewerCookie(header: string, mount: Mount): string {
  const cookie = parseSetCookie(header)
  if (cookie === undefined) return header
  cookie.domain = undefined
  if (mount.mirror !== undefined) {
    cookie.path = `${mount.mirror}${cookie.path?.startsWith('/') ? cookie.path : '/'}`
  } else {
    cookie.sameSite = 'none'
    cookie.secure = true
    cookie.partitioned = true
  }
  return stringifySetCookie(cookie)
}

/**
 * Coming back: framing refusals go (`X-Frame-Options`, CSP `frame-ancestors`), and so do
 * CORS grants (the preview origins answer no cross-origin reads; the mirror is the API's
 * origin); `Location` and `Set-Cookie` are fitted to the mount.
 */
export function viewerHeaders(headers: IncomingHttpHeaders, viewerOrigin: string, mount: Mount, target: WebTarget): IncomingHttpHeaders {
  const back: IncomingHttpHeaders = {}
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'x-frame-options' || name.startsWith('access-control-')) continue
    back[name] = value
  }
  const csp = headers['content-security-policy']
  if (typeof csp === 'string') {
    const policy = withoutFrameAncestors(csp)
    if (policy === '') delete back['content-security-policy']
    else back['content-security-policy'] = policy
  }
  if (typeof headers.location === 'string') back.location = viewerLocation(headers.location, viewerOrigin, mount, target)
  const cookies = headers['set-cookie']
  if (cookies !== undefined) back['set-cookie'] = cookies.map((cookie) => viewerCookie(cookie, mount))
  return back
}
