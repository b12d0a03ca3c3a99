import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import { isLoopbackHost, type Config } from '@svc/core'
import { HttpError } from '../http-error.js'
import { arrivedVia } from '../listeners.js'

export interface AuthOptions {
  config: Config
  token: string
  tokenPath: string
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** Constant-time, whatever the lengths. */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected))
}

function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  const bearer = header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]
  if (bearer) return bearer
  const query = request.query as Record<string, unknown> | undefined
  return typeof query?.access_token === 'string' ? query.access_token : undefined
}

/**
 * The TCP listener's bearer token and CORS, both read from config on every request so a
 * change applies to the next one. The Unix socket needs no token: its 0600 mode is the
 * authentication.
 */
export const auth = fp(async (app: FastifyInstance, { config, token, tokenPath }: AuthOptions) => {
  await app.register(cors, {
    origin: (origin, callback) => {
      callback(null, origin !== undefined && config.get('network.cors_allowed_origins').includes(origin))
    },
    methods: ['GET', 'POST'],
    strictPreflight: false,
    optionsSuccessStatus: 204,
  })
  // @fastify/cors answers the preflight of an allowed origin itself. It hands any other
  // preflight to the not-found handler, whose 405 would say the route refuses OPTIONS; a
  // preflight answers 204 whatever the origin, and without Access-Control-Allow-Origin the
  // browser refuses the real request. Plain OPTIONS (not a preflight) stays 405.
  app.addHook('onRequest', (request, reply, done) => {
    const preflight =
      request.method === 'OPTIONS' &&
      request.headers.origin !== undefined &&
      request.headers['access-control-request-method'] !== undefined
    if (!preflight) return done()
    reply.code(204).header('content-length', '0').send()
  })

  // Callback-style hooks: cheaper than async ones on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    const via = arrivedVia(request.raw)
    if (via === undefined || request.method === 'OPTIONS' || !config.get('network.require_token')) return done()
    const loopbackPeer = isLoopbackHost(request.raw.socket.remoteAddress ?? '')
    if (via.loopbackBind && loopbackPeer && !config.get('network.require_loopback_token')) return done()
    const presented = presentedToken(request)
    if (presented !== undefined && tokenMatches(presented, token)) return done()
    done(
      new HttpError(
        401,
        `this listener requires the bearer token: send "Authorization: Bearer <token>" with the token from ${tokenPath}`,
      ),
    )
  })
})
