import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import Router from 'find-my-way'
import { MAX_BODY_BYTES, MUTATION_COMMITTED, quote, type ErrorBodyT } from '@svc/protocol'
import { DomainError, MutationCommitted, NotReady } from '@svc/core'
import { HttpError } from '../http-error.js'
import { decodeErrorMessage } from './decoding.js'

interface Mapped {
  status: number
  error: ErrorBodyT
}

function bodyTooLarge(request: FastifyRequest): string {
  const declared = request.headers['content-length']
  const detail = declared ? `Content-Length is ${declared} bytes` : `more than ${MAX_BODY_BYTES} bytes were sent`
  return `request body exceeds ${MAX_BODY_BYTES}-byte limit: ${detail}`
}

/**
 * The last bound on an error message: request values are quoted cut to a prefix where a
 * message is made, and a message that still grew past this (a quote from a library, a
 * subprocess's output) is cut here, saying so.
 */
const MAX_MESSAGE_CHARS = 4096

function bounded(message: string): string {
  return message.length <= MAX_MESSAGE_CHARS
    ? message
    : `${message.slice(0, MAX_MESSAGE_CHARS)}… (message cut: ${message.length} characters)`
}

/** Maps any failure to its status and error body; the daemon marks what it rejected. */
export function mapError(error: FastifyError | Error, request: FastifyRequest): Mapped {
  const rejected = (status: number, message: string): Mapped => ({
    status,
    error: { message: bounded(message), daemon_rejected: true },
  })
  if (error instanceof MutationCommitted) return { status: 500, error: { message: bounded(error.message), code: MUTATION_COMMITTED } }
  if (error instanceof NotReady) return rejected(503, error.message)
  if (error instanceof DomainError) return rejected(500, error.message)
  if (error instanceof HttpError) return rejected(error.statusCode, error.message)
  const fastifyError = error as FastifyError
  if (fastifyError.validation) return rejected(400, decodeErrorMessage(fastifyError.validation))
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return rejected(413, bodyTooLarge(request))
  const status = fastifyError.statusCode
  if (status !== undefined && status >= 400 && status < 500) return rejected(status, `malformed request: ${error.message}`)
  request.log.error({ err: error }, 'handler failed')
  return rejected(500, error.message || 'internal error')
}

function unknownRoute(reply: FastifyReply, path: string): FastifyReply {
  return reply.code(404).send({ data: null, error: { message: `unknown route ${quote(path)}`, daemon_rejected: true } })
}

/**
 * Fastify's answer to a URL it cannot decode (`/v1/ListTasks%ZZ`), before any route or
 * hook: such a path names no route, so it is the unknown-route envelope.
 */
export function answerFrameworkError(_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // Sends at once; the reply's thenable side is not needed.
  void unknownRoute(reply, request.raw.url?.split('?')[0] ?? '')
}

/** The verbs a 405 can name; OPTIONS is left out, as CORS serves it on every path for preflights. */
const VERBS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'] as const

/**
 * Every response is `{data, error}`; unknown paths are 404 and wrong verbs 405, for every
 * route however it is registered (the catalog, the live planes, debug routes).
 */
export const envelope = fp(async (app: FastifyInstance) => {
  const served = Router()
  app.addHook('onRoute', ({ method, url }) => {
    // The API's paths only: the web UI's catch-all would make every unknown path a wrong verb.
    if (!url.startsWith('/v1/')) return
    for (const verb of [method].flat()) served.on(verb.toUpperCase() as Router.HTTPMethod, url, () => undefined)
  })

  app.setErrorHandler((error, request, reply) => {
    const { status, error: body } = mapError(error as FastifyError, request)
    if (status === 413) {
      // Closing now would reset a client still uploading and could lose this answer:
      // keep the connection, discard the rest of the body, and let the client read.
      reply.removeHeader('connection')
      request.raw.resume()
    }
    return reply.code(status).send({ data: null, error: body })
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url
    const allowed = VERBS.filter((verb) => served.find(verb, path) !== null)
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send({
          data: null,
          error: { message: `method ${request.method} not allowed; use ${allowed.join(' or ')}`, daemon_rejected: true },
        })
    }
    return unknownRoute(reply, path)
  })
})
