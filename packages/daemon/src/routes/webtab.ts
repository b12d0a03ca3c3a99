import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify'
import replyFrom from '@fastify/reply-from'
import type { Core } from '@svc/core'
import { WEBTAB_PREFIX } from '@svc/protocol'
import { HttpError } from '../http-error.js'
import { bridge, forward } from '../webtab/forward.js'
import { warmingPage } from '../webtab/pages.js'
import { climbs, splitUrl } from '../webtab/path.js'
import { passThroughBodies, PROXIED_METHODS, REPLY_FROM_OPTIONS } from '../webtab/plugin.js'
import type { Mount } from '../webtab/rewrite.js'
import { webTarget, type WebTarget } from '../webtab/target.js'

interface Mirrored {
  target: WebTarget
  mount: Mount
  /** The path the upstream sees, and the query as the browser sent it. */
  path: string
  search: string
}

/** The tab a mirror URL names and the upstream path, read from the raw URL so nothing is decoded twice. */
function mirrored(core: Core, token: string, request: FastifyRequest): Mirrored {
  const { path: rawPath, search } = splitUrl(request.raw.url ?? '/')
  if (climbs(rawPath)) throw new HttpError(400, 'invalid web tab path')
  const [, , , session = '', tab = '', ...rest] = rawPath.split('/')
  const target = webTarget(core.sessions, decodeURIComponent(session), decodeURIComponent(tab))
  return { target, mount: { mirror: `${WEBTAB_PREFIX}/${session}/${tab}`, token }, path: `/${rest.join('/')}`, search }
}

/**
 * The same-origin mirror: `ANY /v1/webtab/{session_id}/{tab_id}/{rest}` reverse-proxies a
 * loopback web tab (or a session's editor) on the Unix socket and the TCP listener, behind
 * the same gate as every API route (Host, Origin, token); only the JSON-only body rule is
 * lifted, since a dev server takes forms and uploads (see docs/security.md, Web tabs and editors).
 */
export function webtabRoutes(core: Core, token: string) {
  return async (app: FastifyInstance) => {
    passThroughBodies(app)
    await app.register(replyFrom, REPLY_FROM_OPTIONS)
    app.addHook('onRequest', (_request, reply, done) => {
      if (core.phase === 'ready') return done()
      void warmingPage(reply)
    })

    app.route({
      method: ['GET', ...PROXIED_METHODS],
      url: `${WEBTAB_PREFIX}/:session/:tab`,
      config: { webtab: true },
      handler: (request, reply) => {
        const { path, search } = splitUrl(request.raw.url ?? '/')
        if (climbs(path)) throw new HttpError(400, 'invalid web tab path')
        return reply.redirect(`${path}/${search}`, 301)
      },
    })

    const resolve: preHandlerHookHandler = (request, _reply, done) => {
      request.webtab = mirrored(core, token, request)
      done()
    }
    const proxy = (request: FastifyRequest, reply: FastifyReply) => {
      const { target, mount, path, search } = request.webtab as Mirrored
      return forward(request, reply, target, mount, path, search)
    }
    const url = `${WEBTAB_PREFIX}/:session/:tab/*`
    app.route({ method: PROXIED_METHODS, url, config: { webtab: true }, preHandler: resolve, handler: proxy })
    app.route({
      method: 'GET',
      url,
      config: { webtab: true },
      preHandler: resolve,
      handler: proxy,
      wsHandler: (socket, request) => {
        const { target, mount, path, search } = request.webtab as Mirrored
        bridge(socket, request, target, mount, path, search)
      },
    })
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    webtab?: unknown
  }
  interface FastifyContextConfig {
    /** A web-tab proxy route: any body type passes the gate's JSON-only rule. */
    webtab?: true
  }
}
