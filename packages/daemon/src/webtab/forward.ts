import type { FastifyReply, FastifyRequest } from 'fastify'
import WebSocket, { type RawData } from 'ws'
import { upstreamHeaders, upstreamQuery, viewerHeaders, type Mount } from './rewrite.js'
import type { WebTarget } from './target.js'

export const WEBTAB_ERROR_HEADER = 'x-svc-webtab-error'

/** What the browser called the page from: `http://<Host>`, which mount rewrites compare against. */
export function viewerOriginOf(request: FastifyRequest): string {
  return `http://${request.headers.host ?? ''}`
}

/**
 * One HTTP request to the tab's upstream through @fastify/reply-from: the body streams
 * through untouched (the proxy routes have a pass-through body parser), headers are
 * rewritten both ways, and an unreachable upstream is a 502 envelope the viewer can tell
 * from the upstream's own answers by `X-SVC-Webtab-Error`. Never retried: a dev server's
 * 503 is its answer, and a POST must not be sent twice.
 */
export function forward(request: FastifyRequest, reply: FastifyReply, target: WebTarget, mount: Mount, path: string, search: string): FastifyReply {
  const viewerOrigin = viewerOriginOf(request)
  return reply.from(path, {
    getUpstream: () => target.origin,
    queryString: () => upstreamQuery(search, mount).slice(1),
    retryDelay: () => null,
    rewriteRequestHeaders: (_request, headers) => upstreamHeaders(headers, viewerOrigin, mount, target),
    rewriteHeaders: (headers) => viewerHeaders(headers, viewerOrigin, mount, target),
    onError: (failed, { error }) => {
      void failed
        .code(502)
        .header(WEBTAB_ERROR_HEADER, 'upstream-unreachable')
        .send({ data: null, error: { message: `the web tab's server at ${target.origin} did not answer: ${error.message}`, daemon_rejected: true } })
    },
  })
}

const BAD_GATEWAY = 1014

/**
 * A WebSocket (a dev server's hot-reload socket) joined to the same path upstream, message
 * by message so text and binary frames keep their kind. The viewer's socket is already
 * open when this runs; if the upstream refuses, it is closed with 1014 (bad gateway).
 */
export function bridge(viewer: WebSocket, request: FastifyRequest, target: WebTarget, mount: Mount, path: string, search: string): void {
  const protocols = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((name) => name.trim()).filter(Boolean)
  const headers = upstreamHeaders(request.headers, viewerOriginOf(request), mount, target)
  const upstream = new WebSocket(`${target.origin.replace(/^http/, 'ws')}${path}${upstreamQuery(search, mount)}`, protocols, {
    headers: pick(headers, ['cookie', 'origin', 'user-agent', 'accept-language']),
  })
  const pending: Array<[RawData, boolean]> = []
  viewer.on('message', (data, binary) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary })
    else pending.push([data, binary])
  })
  upstream.on('open', () => {
    for (const [data, binary] of pending.splice(0)) upstream.send(data, { binary })
  })
  upstream.on('message', (data, binary) => viewer.send(data, { binary }))
  upstream.on('error', () => closeWith(viewer, BAD_GATEWAY, 'upstream-unreachable'))
  upstream.on('unexpected-response', (_request, response) => {
    closeWith(viewer, BAD_GATEWAY, `upstream answered ${response.statusCode}`)
    upstream.terminate()
  })
  upstream.on('close', (code, reason) => closeWith(viewer, code, reason.toString()))
  viewer.on('close', (code, reason) => closeWith(upstream, code, reason.toString()))
  viewer.on('error', () => upstream.terminate())
}

/** Close codes a peer may send on; the reserved ones (1005, 1006) become a plain 1000. */
function closeWith(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === WebSocket.CLOSING || socket.readyState === WebSocket.CLOSED) return
  if (socket.readyState === WebSocket.CONNECTING) return socket.terminate()
  const sendable = code === 1000 || (code >= 1001 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code < 5000)
  socket.close(sendable ? code : 1000, Buffer.byteLength(reason) <= 123 ? reason : '')
}

function pick(headers: Record<string, string | string[] | undefined>, names: string[]): Record<string, string> {
  const picked: Record<string, string> = {}
  for (const name of names) {
    const value = headers[name]
    if (typeof value === 'string') picked[name] = value
  }
  return picked
}
