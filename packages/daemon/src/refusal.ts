import type { FastifyRequest } from 'fastify'
import { HttpError } from './http-error.js'
import { redactUrl } from './redact.js'

/** A refusal, logged (credentials redacted) so an attack leaves a trace in daemon.log. */
export function refusal(request: FastifyRequest, status: number, message: string): HttpError {
  request.log.info(
    {
      refused: status,
      method: request.method,
      url: redactUrl(request.url),
      host: request.headers.host,
      origin: request.headers.origin,
      peer: request.raw.socket.remoteAddress ?? 'unix',
    },
    message,
  )
  return new HttpError(status, message)
}
