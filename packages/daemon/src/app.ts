import { createServer, type RequestListener, type Server } from 'node:http'
import websocket from '@fastify/websocket'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { MAX_BODY_BYTES } from '@svc/protocol'
import type { Core } from '@svc/core'
import type { WebSocketServer } from 'ws'
import { answerClientError } from './client-error.js'
import { closeWebSockets, STOPPING_REASON } from './going-away.js'
import { HttpError } from './http-error.js'
import { WEBSOCKET_OPTIONS } from './websocket-options.js'
import type { UpgradeListener } from './listeners.js'
import { decoding } from './plugins/decoding.js'
import { answerFrameworkError, envelope } from './plugins/envelope.js'
import { networkSafety } from './plugins/network-safety.js'
import { warmupRefusal } from './plugins/warmup.js'
import { routeGroup, type AllHandlers } from './routes/group.js'
import { accountRoutes } from './routes/accounts.js'
import { configRoutes } from './routes/config.js'
import { configAssistantRoutes } from './routes/config-assistant.js'
import { agentServerRoutes } from './routes/agent-server.js'
import { eventRoutes } from './routes/events.js'
import { healthRoutes, type AgentServerInfo, type ListenerReport } from './routes/health.js'
import { projectRoutes } from './routes/projects.js'
import { sessionRoutes } from './routes/sessions.js'
import { tabRoutes } from './routes/tabs.js'
import { taskRoutes } from './routes/tasks.js'
import { terminalRoutes } from './routes/terminal.js'
import { streamRoutes } from './routes/stream.js'
import { StreamHub } from './stream/hub.js'
import { pprofRoutes } from './routes/pprof.js'
import { webUi, webUiRoot } from './plugins/web-ui.js'
import { previewAuthRoutes } from './routes/preview-auth.js'
import { webtabRoutes } from './routes/webtab.js'
import type { PreviewOrigins } from './webtab/origins.js'

export interface AppOptions {
  core: Core
  log: Logger
  token: string
  listeners: () => ListenerReport
  /** The preview origins, and the preview listener's port while it is bound. */
  previews: { origins: PreviewOrigins; port: () => number | undefined }
  agentServer?: AgentServerInfo
}

export interface App {
  fastify: FastifyInstance
  /** The Unix socket server. */
  server: Server
  /** Fastify's request handler and WebSocket upgrade handler, for the TCP listener to share. */
  handler: RequestListener
  upgrade: UpgradeListener
  /** Every route registered, as Fastify saw it. */
  served: Array<{ method: string; url: string }>
  /** Ends the live WebSockets (1001): the first step of a stop. */
  closeWebSockets(): Promise<void>
}

/** The HTTP surface: one plugin per concern, then one per route group. */
export async function buildApp({ core, log, token, listeners, previews, agentServer }: AppOptions): Promise<App> {
  let handler: RequestListener | undefined
  const fastify = Fastify({
    // The daemon log reaches Fastify as each request's logger (request.log, where refusals and
    // failures are logged), not as Fastify's own: with a logger of its own, Fastify times and
    // listens to every response for request lines, which cost throughput and are not wanted.
    childLoggerFactory: () => log as FastifyBaseLogger,
    // Per-request lines would flood daemon.log; failures are logged where they are mapped.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: MAX_BODY_BYTES,
    // HEAD is a wrong verb for /v1/health, not an implicit route.
    exposeHeadRoutes: false,
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    serverFactory: (requestHandler) => {
      handler = requestHandler
      return createServer(requestHandler)
    },
  })
  const served: App['served'] = []
  fastify.addHook('onRoute', ({ method, url }) => {
    for (const verb of [method].flat()) served.push({ method: verb, url })
  })
  await fastify.register(envelope)
  await fastify.register(decoding)
  await fastify.register(networkSafety, { config: core.config, token, tokenPath: core.paths.token, warmup: warmupRefusal(core) })

  const groups: AllHandlers = {
    health: healthRoutes(core, listeners, agentServer),
    sessions: sessionRoutes(core),
    tabs: tabRoutes(core.sessions),
    projects: projectRoutes(core.projects, core.resolver),
    accounts: accountRoutes(core.accounts),
    config: configRoutes(core.resolver),
    tasks: taskRoutes(core.tasks),
    terminal: terminalRoutes(core.sessions),
  }
  for (const [group, handlers] of Object.entries(groups)) {
    await fastify.register(routeGroup(group as keyof AllHandlers, handlers as never))
  }
  const hub = new StreamHub(core.sessions.tmux)
  fastify.addHook('onClose', () => hub.close())
  // The WebSocket plugin hooks and wraps every route in its scope, so only the routes that
  // upgrade share it. Upgrades are routed through the same hooks as requests: the gate
  // runs before any socket is accepted.
  let sockets: WebSocketServer | undefined
  let stopping = false
  await fastify.register(async (upgrading) => {
    // Once the stop has closed the sockets, none opens again here: a client it closed would reconnect to this daemon.
    upgrading.addHook('onRequest', (request, _reply, done) => done(stopping && request.headers.upgrade ? new HttpError(503, STOPPING_REASON) : undefined))
    await upgrading.register(websocket, WEBSOCKET_OPTIONS)
    sockets = upgrading.websocketServer
    await upgrading.register(eventRoutes(core))
    await upgrading.register(streamRoutes(core, hub, (session, repoId) => core.sessions.remoteLink(session, repoId)))
    await upgrading.register(webtabRoutes(core, token))
  })
  await fastify.register(configAssistantRoutes(core.assistant))
  if (agentServer) await fastify.register(agentServerRoutes(core, agentServer))
  await fastify.register(pprofRoutes(core.config))
  await fastify.register(previewAuthRoutes(previews.origins, previews.port))
  // SVC_WEB_ROOT serves another build of the web UI (or, pointing nowhere, none).
  await fastify.register(webUi, { root: process.env.SVC_WEB_ROOT ?? webUiRoot() })
  await fastify.ready()
  const upgrade: UpgradeListener = (request, socket, head) => fastify.server.emit('upgrade', request, socket, head)
  const server = sockets as WebSocketServer
  return {
    fastify,
    server: fastify.server,
    handler: handler as RequestListener,
    upgrade,
    served,
    closeWebSockets: () => {
      stopping = true
      return closeWebSockets(server)
    },
  }
}
