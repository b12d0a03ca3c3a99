import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isLoopbackHost, memoized, type Config } from '@svc/core'
import { arrivedVia } from '../listeners.js'
import { tokenGate } from './auth.js'
import { refusal } from '../refusal.js'

export interface NetworkSafetyOptions {
  config: Config
  token: string
  tokenPath: string
  /** The warm-up 503 a request gets, if any (see warmup.ts). */
  warmup: (request: FastifyRequest) => Error | undefined
}

/** A Host header as a URL origin, or undefined when it is not a host[:port]. */
const hostAsOrigin = memoized((host: string): URL | undefined => {
  if (host === '' || /[/?#@\s]/.test(host)) return undefined
  try {
    return new URL(`http://${host}`)
  } catch {
    return undefined
  }
})

function hostOrigin(request: FastifyRequest): URL | undefined {
  return request.headers.host === undefined ? undefined : hostAsOrigin(request.headers.host)
}

function hostAllowed(config: Config, host: URL | undefined): boolean {
  if (host === undefined) return false
  if (isLoopbackHost(host.hostname)) return true
  return config.get('network.allowed_hosts').some((name) => name.toLowerCase() === host.hostname)
}

/** `http://<host>:<port>` of the listener the request arrived on, as its Host header names it. */
function isOwnOrigin(request: FastifyRequest, origin: string, host: URL | undefined): boolean {
  if (host === undefined || origin !== host.origin) return false
  // On TCP the port must be the one the request really arrived on; the Unix socket has none.
  return arrivedVia(request.raw) === undefined || Number(host.port || 80) === request.raw.socket.localPort
}

function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined
}

/** JSON, or nothing at all: anything else is what a web page can send without a preflight. */
function contentTypeRefusal(request: FastifyRequest): string | undefined {
  const type = request.headers['content-type']
  if (type === undefined) {
    const length = Number(request.headers['content-length'] ?? 0)
    const hasBody = length > 0 || request.headers['transfer-encoding'] !== undefined
    return hasBody ? 'a POST body needs "Content-Type: application/json"' : undefined
  }
  if (type === 'application/json') return undefined // what clients send, without parsing it
  const media = type.split(';', 1)[0]?.trim().toLowerCase()
  return media === 'application/json'
    ? undefined
    : `unsupported content type "${type}": POST bodies must be application/json`
}

/**
 * CORS for an origin in network.cors_allowed_origins: the origin echoed, and for its
 * preflight the methods and the headers it asked for.
 */
function allowCrossOrigin(request: FastifyRequest, reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin)
  if (!isPreflight(request)) return
  reply.header('access-control-allow-methods', 'GET, POST')
  reply.header('vary', 'Origin, Access-Control-Request-Headers')
  const asked = request.headers['access-control-request-headers']
  if (asked !== undefined) reply.header('access-control-allow-headers', asked)
}

/** Host and Origin: the refusal a request from an unexpected page or name gets, if any. */
function originRefusal(request: FastifyRequest, reply: FastifyReply, config: Config): Error | undefined {
  const via = arrivedVia(request.raw)
  const origin = request.headers.origin
  const host = hostOrigin(request)
  if (via?.loopbackBind && !hostAllowed(config, host)) {
    const named = request.headers.host ?? ''
    return refusal(
      request,
      403,
      `host "${named}" is not allowed on a loopback listener: use localhost or 127.0.0.1, or add the name to network.allowed_hosts`,
    )
  }
  if (origin === undefined) return undefined
  if (config.get('network.cors_allowed_origins').includes(origin)) {
    allowCrossOrigin(request, reply, origin)
    return undefined
  }
  // A preflight changes nothing: it is answered without echoing a refused origin.
  if (isPreflight(request) || isOwnOrigin(request, origin, host)) return undefined
  return refusal(
    request,
    403,
    `origin "${origin}" is not allowed: only this listener's own origin and network.cors_allowed_origins may call the API`,
  )
}

/**
 * The one gate every listener's requests pass, in `onRequest` so it runs before any body
 * is read, any handler runs, and any WebSocket upgrade is accepted (Fastify runs
 * `onRequest` for the upgrade GET too). A browser on this machine is an attacker's
 * foothold: any page can send "simple" cross-origin POSTs or open a WebSocket to
 * loopback, and DNS rebinding can point a hostile name at it. So, in order:
 * - the Host rule on loopback TCP binds (403),
 * - the Origin rule on every listener (403), and CORS for the allowed origins,
 * - any preflight answered 204, with CORS headers only for an allowed origin,
 * - the token (401, see auth.ts),
 * - JSON-only POST bodies (415), except through the web-tab proxy,
 * - the warm-up 503 of routes that wait for restored state.
 * One hook, not one per rule: every request of every route pays for each hook.
 */
export const networkSafety = fp(async (app: FastifyInstance, options: NetworkSafetyOptions) => {
  const { config, warmup } = options
  app.decorateRequest('tokenRequired', false)
  const checkToken = tokenGate(options)
  app.addHook('onRequest', (request, reply, done) => {
    // Every answer depends on the Origin (an echo, a refusal): caches must not share them.
    reply.header('vary', 'Origin')
    // An upgrade answered over HTTP (refused, or on a route that does not upgrade) leaves a
    // socket no server tracks any more: it closes once the answer is out.
    if (request.headers.upgrade !== undefined) reply.raw.once('finish', () => request.raw.socket.destroy())
    // The Unix socket accepts any host name; without an Origin there is nothing to parse.
    if (arrivedVia(request.raw) !== undefined || request.headers.origin !== undefined) {
      const refused = originRefusal(request, reply, config)
      if (refused) return done(refused)
    }
    // A preflight answers 204 whatever the origin, and without Access-Control-Allow-Origin
    // the browser refuses the real request; the not-found handler's 405 would say the
    // route refuses OPTIONS. Plain OPTIONS (not a preflight) stays 405.
    if (isPreflight(request) && request.headers.origin !== undefined) {
      reply.code(204).header('content-length', '0').send()
      return
    }
    const denied = checkToken(request, reply)
    if (denied === 'answered') return
    if (denied) return done(denied)
    const refused = request.method === 'POST' ? contentTypeRefusal(request) : undefined
    // A web tab's dev server takes forms and uploads; the rules above still hold for it.
    // Its route is read only for such a body: reading route options costs a request.
    if (refused !== undefined && !request.routeOptions.config.webtab) return done(refusal(request, 415, refused))
    done(warmup(request))
  })
})
