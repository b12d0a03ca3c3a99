import type { Socket } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { routes, type CheckedRequestOf, type ResponseOf, type Route, type RouteGroup, type RouteName } from '@svc/protocol'
import { InvalidRequest } from '@svc/core'
import { arrivedVia } from '../listeners.js'

/** Who is calling, for audit trails. */
export interface CallContext {
  via: 'unix' | 'tcp'
  /** Whether the listener asks this caller for the token (false on the Unix socket). */
  tokenRequired: boolean
  /** The caller's connection, the same for every request it sends (a peer with no name of its own). */
  readonly connection: string
}

/** How many recent pre-encoded answers keep their envelope. */
const ENCODED_KEPT = 8

/**
 * Up to this many characters an envelope is written as text: Node sends a text body in
 * one piece with the headers, where bytes take a second chunk. A longer one (a Snapshot
 * of a large fleet) is kept as bytes, so it is not encoded again on every write.
 */
const TEXT_BODY_MAX = 16 * 1024

/**
 * A response already encoded as JSON text, for handlers that cache their encoding
 * (a Snapshot of a large fleet); `T` is the shape the text holds. The envelope is kept
 * for the last few texts, so an unchanged answer is written without encoding.
 */
export class PreEncoded<T> {
  declare readonly shape: T
  private static readonly recent = new Map<string, PreEncoded<unknown>>()
  readonly body: string | Buffer

  private constructor(json: string) {
    const envelope = `{"data":${json},"error":null}`
    this.body = envelope.length <= TEXT_BODY_MAX ? envelope : Buffer.from(envelope)
  }

  static of<T>(json: string): PreEncoded<T> {
    const known = PreEncoded.recent.get(json)
    if (known) return known as PreEncoded<T>
    if (PreEncoded.recent.size >= ENCODED_KEPT) PreEncoded.recent.clear()
    const encoded = new PreEncoded<T>(json)
    PreEncoded.recent.set(json, encoded)
    return encoded
  }
}

type Result<N extends RouteName> = ResponseOf<N> | PreEncoded<ResponseOf<N>>

/** Receives the body with the route's required fields checked present. */
export type Handler<N extends RouteName> = (body: CheckedRequestOf<N>, context: CallContext) => Promise<Result<N>> | Result<N>

/** Every route of a group must have its handler, or the build fails. */
export type GroupHandlers<G extends RouteGroup> = {
  [N in Extract<Route, { group: G }>['name']]: Handler<N>
}

/** One group per route group present in the table, so a new route without a handler fails to compile. */
export type AllHandlers = { [G in Route['group']]: GroupHandlers<G> }

const JSON_TYPE = 'application/json; charset=utf-8'

/** Connections in order of their first call that asked who they are; a Unix socket peer has no address to name it by. */
const connections = new WeakMap<Socket, string>()
let connectionCount = 0

function connectionOf(socket: Socket): string {
  let name = connections.get(socket)
  if (name === undefined) {
    name = `#${++connectionCount}${socket.remoteAddress === undefined ? '' : ` ${socket.remoteAddress}:${socket.remotePort}`}`
    connections.set(socket, name)
  }
  return name
}

/**
 * A class, not an object literal with a getter: V8 builds such a literal's accessor anew
 * on every request, which the profile showed on the cheapest routes.
 */
class RequestContext implements CallContext {
  readonly via: CallContext['via']
  readonly tokenRequired: boolean

  constructor(private readonly socket: Socket, tcp: boolean, tokenRequired: boolean) {
    this.via = tcp ? 'tcp' : 'unix'
    this.tokenRequired = tokenRequired
  }

  /** Named only when a handler asks: most never do. */
  get connection(): string {
    return connectionOf(this.socket)
  }
}

function contextOf(request: FastifyRequest): CallContext {
  return new RequestContext(request.raw.socket, arrivedVia(request.raw) !== undefined, request.tokenRequired)
}

/** Sends a handler's result in the envelope: a function, so no closure is made per request. */
function sendEnvelope(reply: FastifyReply, data: Result<RouteName>): FastifyReply {
  return data instanceof PreEncoded ? reply.type(JSON_TYPE).send(data.body) : reply.send({ data, error: null })
}

/**
 * The one check of the fields the route table declares required, before any handler
 * runs: the first one absent (or empty, where empty is no value) is refused.
 */
function checkRequired(route: Route, body: Record<string, unknown> | null | undefined): void {
  for (const { field, hint, emptyAllowed } of route.required as Route['required'][number][]) {
    const value = body?.[field]
    if (value === undefined || (value === '' && !emptyAllowed)) throw new InvalidRequest(`${field} is required${hint ? ` (${hint})` : ''}`)
  }
}

/** A Fastify plugin registering one group's routes by walking the route table. */
export function routeGroup<G extends RouteGroup>(group: G, handlers: GroupHandlers<G>) {
  return async (app: FastifyInstance) => {
    for (const route of routes.filter((entry) => entry.group === group)) {
      const handler = (handlers as unknown as Record<string, Handler<RouteName>>)[route.name] as Handler<RouteName>
      app.route({
        method: route.method,
        url: route.path,
        ...(route.method === 'POST' ? { schema: { body: route.request } } : {}),
        config: { route },
        // Synchronous results are sent at once: an async hop per request costs throughput.
        handler: (request, reply) => {
          checkRequired(route, request.body as Record<string, unknown> | null)
          const result = handler(request.body as CheckedRequestOf<RouteName>, contextOf(request))
          return result instanceof Promise ? result.then((data) => sendEnvelope(reply, data)) : sendEnvelope(reply, result)
        },
      })
    }
  }
}
