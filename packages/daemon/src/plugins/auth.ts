import { createHmac, timingSafeEqual } from 'node:crypto'
import { parseCookie, stringifySetCookie } from 'cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isLoopbackHost, type Config } from '@svc/core'
import { arrivedVia } from '../listeners.js'
import { refusal } from '../refusal.js'

export interface AuthOptions {
  config: Config
  token: string
  tokenPath: string
}

/**
 * Constant-time over the content. A presented value of another length is refused at
 * once, which tells only the length: tokens and cookie values have a fixed, public one.
 */
export function tokenMatches(presented: string, expected: string): boolean {
  const given = Buffer.from(presented)
  const wanted = Buffer.from(expected)
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}

const QUERY_TOKENS = ['token', 'access_token'] as const

function queryToken(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined
  for (const name of QUERY_TOKENS) if (typeof query?.[name] === 'string') return query[name]
  return undefined
}

function bearerToken(request: FastifyRequest): string | undefined {
  return request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]
}

/** Cookies are shared by every port of a host, so each listener port gets its own name. */
function cookieName(request: FastifyRequest): string {
  return `svc_login_${request.raw.socket.localPort}`
}

/** The cookie holds a value derived from the token, not the bearer token itself. */
function cookieValue(token: string): string {
  return createHmac('sha256', token).update('svc cookie login').digest('base64url')
}

function cookieToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie
  return header === undefined ? undefined : parseCookie(header)[cookieName(request)]
}

/** The same URL without its token parameters, where a cookie login sends the browser. */
function withoutToken(url: string): string {
  const parsed = new URL(url, 'http://svc')
  for (const name of QUERY_TOKENS) parsed.searchParams.delete(name)
  // One leading slash: `//host/…` would send the browser to another host.
  return parsed.pathname.replace(/^\/+/, '/') + parsed.search
}

/** A browser opening the login URL: a plain GET (not a WebSocket upgrade) carrying the token in its query. */
function isLogin(request: FastifyRequest): boolean {
  return request.method === 'GET' && request.headers.upgrade === undefined
}

/**
 * How long a browser stays logged in: a month, so an installed app or a reopened browser
 * does not ask for the login URL again. The cookie's value derives from the token: a new
 * token logs every browser out at once.
 */
const LOGIN_COOKIE_MAX_AGE_S = 30 * 24 * 60 * 60

/**
 * The TCP listener's token, read from config on every request so a change applies to
 * the next one. The Unix socket needs no token: its 0600 mode is the authentication.
 * Browsers log in Jupyter-style: a valid `?token=` on a GET is traded for an HttpOnly,
 * SameSite=Strict cookie and a redirect to the same URL without it. The check answers
 * the login itself ("answered"), or gives the refusal to send, or nothing when it passes.
 */
export function tokenGate({ config, token, tokenPath }: AuthOptions) {
  const cookie = cookieValue(token)
  return (request: FastifyRequest, reply: FastifyReply): Error | 'answered' | undefined => {
    const via = arrivedVia(request.raw)
    if (via === undefined || request.method === 'OPTIONS') return undefined
    const loopbackPeer = isLoopbackHost(request.raw.socket.remoteAddress ?? '')
    const exempt = via.loopbackBind && loopbackPeer && !config.get('network.require_loopback_token')
    request.tokenRequired = config.get('network.require_token') && !exempt

    const inQuery = queryToken(request)
    const queryValid = inQuery !== undefined && tokenMatches(inQuery, token)
    if (queryValid && isLogin(request)) {
      reply
        .code(307)
        .header('location', withoutToken(request.url))
        .header('set-cookie', stringifySetCookie({ name: cookieName(request), value: cookie, httpOnly: true, sameSite: 'strict', path: '/', maxAge: LOGIN_COOKIE_MAX_AGE_S }))
        .header('content-length', '0')
        .send()
      return 'answered'
    }
    if (!request.tokenRequired) return undefined
    const bearer = bearerToken(request)
    const fromCookie = cookieToken(request)
    const valid =
      queryValid ||
      (bearer !== undefined && tokenMatches(bearer, token)) ||
      (fromCookie !== undefined && tokenMatches(fromCookie, cookie))
    // Route options are built anew on every read: only a request without the token asks.
    if (valid || request.routeOptions.config.route?.name === 'AuthInfo') return undefined
    return refusal(
      request,
      401,
      `this listener requires the token: send "Authorization: Bearer <token>" with the token from ${tokenPath}, or open the URL "svc web" prints`,
    )
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Whether the listener this request came through asks it for the token. */
    tokenRequired: boolean
  }
}
