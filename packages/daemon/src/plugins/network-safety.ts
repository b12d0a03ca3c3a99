import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isLoopbackHost, type Config } from '@svc/core'
import { arrivedVia } from '../listeners.js'
import { auth } from './auth.js'
import { refusal } from '../refusal.js'

export interface NetworkSafetyOptions {
  config: Config
  token: string
  tokenPath: string
}

/** The Host header as a URL origin, or undefined when it is missing or not a host[:port]. */
function hostOrigin(request: FastifyRequest): URL | undefined {
  const host = request.headers.host
  if (host === undefined || host === '' || /[/?#@\s]/.test(host)) return undefined
  try {
    return new URL(`http://${host}`)
  } catch {
    return undefined
  }
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
  const media = type.split(';', 1)[0]?.trim().toLowerCase()
  return media === 'application/json'
    ? undefined
    : `unsupported content type "${type}": POST bodies must be application/json`
}

/**
 * The one gate every listener's requests pass, in `onRequest` so it runs before any body
 * is read, any handler runs, and any WebSocket upgrade is accepted (Fastify runs
 * `onRequest` for the upgrade GET too). A browser on this machine is an attacker's
 * foothold: any page can send "simple" cross-origin POSTs or open a WebSocket to
 * loopback, and DNS rebinding can point a hostile name at it. So, in order:
 * - the Host rule on loopback TCP binds (403),
 * - the Origin rule on every listener (403),
 * - the token (401, see auth.ts),
 * - JSON-only POST bodies (415).
 */
export const networkSafety = fp(async (app: FastifyInstance, { config, token, tokenPath }: NetworkSafetyOptions) => {
  app.addHook('onRequest', (request, reply, done) => {
    const via = arrivedVia(request.raw)
    const origin = request.headers.origin
    // The Unix socket accepts any host name; without an Origin there is nothing to parse.
    if (via === undefined && origin === undefined) return done()
    const host = hostOrigin(request)
    if (via?.loopbackBind && !hostAllowed(config, host)) {
      const named = request.headers.host ?? ''
      return done(
        refusal(
          request,
          403,
          `host "${named}" is not allowed on a loopback listener: use localhost or 127.0.0.1, or add the name to network.allowed_hosts`,
        ),
      )
    }
    // A preflight changes nothing; CORS (auth.ts) answers it without echoing a refused origin.
    if (origin === undefined || isPreflight(request) || isOwnOrigin(request, origin, host)) return done()
    if (config.get('network.cors_allowed_origins').includes(origin)) return done()
    // The answer depends on the Origin, refusals included: caches must not share it.
    reply.header('vary', 'Origin')
    done(
      refusal(
        request,
        403,
        `origin "${origin}" is not allowed: only this listener's own origin and network.cors_allowed_origins may call the API`,
      ),
    )
  })

  await app.register(auth, { config, token, tokenPath })

  app.addHook('onRequest', (request, _reply, done) => {
    if (request.method !== 'POST') return done()
    const refused = contentTypeRefusal(request)
    done(refused === undefined ? undefined : refusal(request, 415, refused))
  })
})
