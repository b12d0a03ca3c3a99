import type { FastifyInstance, HTTPMethods } from 'fastify'
import type { FastifyReplyFromOptions } from '@fastify/reply-from'

/**
 * Request bodies stay streams for the proxy to pipe up, whatever their type or size: the
 * upstream, not the daemon, decides what it accepts. Call inside the proxy's own scope.
 */
export function passThroughBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
}

/**
 * @fastify/reply-from, with the upstream chosen per request (each tab names its own). No
 * timeouts on headers or bodies: dev servers hold long polls and streams open. Not
 * @fastify/http-proxy: its WebSocket support adds a second 'upgrade' listener to the
 * server, which would route every upgrade a second time beside @fastify/websocket's.
 */
export const REPLY_FROM_OPTIONS: FastifyReplyFromOptions = {
  undici: { headersTimeout: 0, bodyTimeout: 0 },
  disableRequestLogging: true,
}

/** The verbs a web tab is proxied for besides GET, which also carries WebSocket upgrades. */
export const PROXIED_METHODS: HTTPMethods[] = ['DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']
