import { createServer, type RequestListener } from 'node:http'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import replyFrom from '@fastify/reply-from'
import websocket from '@fastify/websocket'
import type { Logger } from 'pino'
import type { Core } from '@svc/core'
import { answerClientError } from '../client-error.js'
import { closeWebSockets } from '../going-away.js'
import { HttpError } from '../http-error.js'
import { WEBSOCKET_OPTIONS } from '../websocket-options.js'
import type { UpgradeListener } from '../listeners.js'
import { bridge, forward } from './forward.js'
import { PROBE_HOST, type PreviewOrigins } from './origins.js'
import { expiredPage, probePage, warmingPage } from './pages.js'
import { climbs, splitUrl } from './path.js'
import { passThroughBodies, PROXIED_METHODS, REPLY_FROM_OPTIONS } from './plugin.js'
import { webTarget, type WebTarget } from './target.js'

export interface PreviewApp {
  fastify: FastifyInstance
  handler: RequestListener
  upgrade: UpgradeListener
  /** Ends the live WebSockets (1001): the first step of a stop. */
  closeWebSockets(): Promise<void>
}

interface Previewed {
  target: WebTarget
  origin: string
  path: string
  search: string
}

/** The Host header's name, lower case, without its port. */
function hostnameOf(request: FastifyRequest): string {
  return (request.headers.host ?? '').replace(/:\d*$/, '').toLowerCase()
}

/**
 * The preview listener: a server of its own that serves no API route at all, only web
 * tabs, each at the root of its own origin `http://svc<label>.localhost:<port>`. The label
 * is the credential (no token, no cookie login); a page there is cross-origin to the API
 * and to every other tab, and the answers carry no CORS grant.
 */
export async function buildPreviewApp(core: Core, origins: PreviewOrigins, log: Logger): Promise<PreviewApp> {
  let handler: RequestListener | undefined
  const fastify = Fastify({
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- it picks Fastify's logger type parameter
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger) => logger,
    exposeHeadRoutes: false,
    clientErrorHandler: answerClientError,
    serverFactory: (requestHandler) => {
      handler = requestHandler
      return createServer(requestHandler)
    },
  })
  fastify.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    const status = error instanceof HttpError ? error.statusCode : (error.statusCode ?? 500)
    return reply.code(status).type('text/plain; charset=utf-8').send(error.message)
  })
  await fastify.register(websocket, WEBSOCKET_OPTIONS)
  await fastify.register(replyFrom, REPLY_FROM_OPTIONS)
  passThroughBodies(fastify)

  /** The tab this request's Host names, or the page answered instead. */
  fastify.addHook('preHandler', (request, reply, done) => {
    const hostname = hostnameOf(request)
    if (hostname === PROBE_HOST) return void probePage(reply)
    if (!hostname.endsWith('.localhost')) {
      return done(new HttpError(403, 'the preview listener serves only its svc….localhost origins; open a tab through svc'))
    }
    if (core.phase !== 'ready') return void warmingPage(reply)
    const address = origins.find(hostname)
    let target: WebTarget | undefined
    try {
      target = address && webTarget(core.sessions, address.sessionId, address.tabId)
    } catch {
      target = undefined
    }
    if (!target) return void expiredPage(reply)
    const { path, search } = splitUrl(request.raw.url ?? '/')
    // An absolute-form request line (`GET http://elsewhere/`) names another host: not a tab path.
    if (!path.startsWith('/') || climbs(path)) return done(new HttpError(400, 'invalid web tab path'))
    request.webtab = { target, origin: `http://${request.headers.host ?? ''}`, path, search } satisfies Previewed
    done()
  })
  const proxy = (request: FastifyRequest, reply: FastifyReply) => {
    const { target, origin, path, search } = request.webtab as Previewed
    return forward(request, reply, target, { origin }, path, search)
  }
  for (const url of ['/', '/*']) {
    fastify.route({ method: PROXIED_METHODS, url, handler: proxy })
    fastify.route({
      method: 'GET',
      url,
      handler: proxy,
      wsHandler: (socket, request) => {
        const { target, origin, path, search } = request.webtab as Previewed
        bridge(socket, request, target, { origin }, path, search)
      },
    })
  }
  await fastify.ready()
  const upgrade: UpgradeListener = (request, socket, head) => fastify.server.emit('upgrade', request, socket, head)
  return { fastify, handler: handler as RequestListener, upgrade, closeWebSockets: () => closeWebSockets(fastify.websocketServer) }
}
