import type { FastifyInstance, FastifySchemaValidationError } from 'fastify'
import fp from 'fastify-plugin'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import Value from 'typebox/value'
import { CLIENT_VERSION_HEADER, MAX_BODY_BYTES, REMOVED_KEYS, type RouteDef } from '@svc/protocol'
import { HttpError } from '../http-error.js'

const MALFORMED = 'malformed JSON request body'

function fieldPath(instancePath: string): string {
  return instancePath.split('/').filter(Boolean).join('.')
}

/** Go-style decode messages: the first unknown field, else the first type mismatch. */
export function decodeErrorMessage(errors: FastifySchemaValidationError[]): string {
  const unknown = errors.find((error) => error.keyword === 'additionalProperties')
  const names = (unknown?.params as { additionalProperties?: string[] } | undefined)?.additionalProperties
  if (names?.[0] !== undefined) return `${MALFORMED}: json: unknown field "${names[0]}"`
  const first = errors[0]
  if (!first) return `${MALFORMED}: invalid`
  const field = fieldPath(first.instancePath)
  return field === ''
    ? `${MALFORMED}: json: request body ${first.message ?? 'is invalid'}`
    : `${MALFORMED}: json: field "${field}" ${first.message ?? 'is invalid'}`
}

/** The first removed key anywhere in a body, such as AddTask's `task.auto_yes`. */
function removedKeyIn(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  for (const [key, child] of Object.entries(value)) {
    const found = REMOVED_KEYS[key] !== undefined ? key : removedKeyIn(child)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * One JSON value per body, whatever the content type. Empty, whitespace-only and `null`
 * bodies mean "no fields". Strict decoding rejects unknown keys; the client-version
 * header makes it lenient (unknown keys are dropped before validation). Fastify's own
 * Ajv would silently strip unknown keys, so TypeBox's compiler validates instead.
 */
export const decoding = fp(async (app: FastifyInstance) => {
  app.setValidatorCompiler(TypeBoxValidatorCompiler)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_request, text, done) => {
    const source = String(text)
    if (source.trim() === '') return done(null, {})
    let value: unknown
    try {
      value = JSON.parse(source)
    } catch (error) {
      return done(new HttpError(400, `${MALFORMED}: ${(error as Error).message}`), undefined)
    }
    if (value === null) return done(null, {})
    if (typeof value !== 'object' || Array.isArray(value)) {
      return done(new HttpError(400, `${MALFORMED}: json: request body must be a JSON object`), undefined)
    }
    done(null, value)
  })

  app.addHook('preValidation', (request, _reply, done) => {
    const route = request.routeOptions.config.route
    if (!route || route.method !== 'POST') return done()
    if (request.body === undefined || request.body === null) request.body = {}
    const body = request.body as Record<string, unknown>
    // Before lenient decoding drops it: a removed key is refused with guidance in both modes.
    const removed = removedKeyIn(body)
    if (removed !== undefined) return done(new HttpError(400, REMOVED_KEYS[removed] as string))
    const header = request.headers[CLIENT_VERSION_HEADER]
    if (typeof header === 'string' && header !== '') request.body = Value.Clean(route.request, body)
    done()
  })
})

declare module 'fastify' {
  interface FastifyContextConfig {
    route?: RouteDef
  }
}
