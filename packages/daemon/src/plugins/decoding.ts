import type { FastifyInstance, FastifyRequest, FastifySchemaValidationError } from 'fastify'
import fp from 'fastify-plugin'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import Value from 'typebox/value'
import { CLIENT_VERSION_HEADER, MAX_BODY_BYTES, MAX_BODY_DEPTH, quote, removedKeyGuidance, type RouteDef } from '@svc/protocol'
import { HttpError } from '../http-error.js'

const MALFORMED = 'malformed JSON request body'

function fieldPath(instancePath: string): string {
  return instancePath.split('/').filter(Boolean).join('.')
}

/** Go-style decode messages: the first unknown field, else the first type mismatch. */
export function decodeErrorMessage(errors: FastifySchemaValidationError[]): string {
  const unknown = errors.find((error) => error.keyword === 'additionalProperties')
  const names = (unknown?.params as { additionalProperties?: string[] } | undefined)?.additionalProperties
  if (names?.[0] !== undefined) return `${MALFORMED}: json: unknown field ${quote(names[0])}`
  const first = errors[0]
  if (!first) return `${MALFORMED}: invalid`
  const field = fieldPath(first.instancePath)
  return field === ''
    ? `${MALFORMED}: json: request body ${first.message ?? 'is invalid'}`
    : `${MALFORMED}: json: field ${quote(field)} ${first.message ?? 'is invalid'}`
}

/**
 * What refuses a parsed body before validation: nesting deeper than MAX_BODY_DEPTH, or a
 * removed key at any depth (such as AddTask's `task.auto_yes`). An iterative walk, so no
 * body can exhaust the stack; array elements are walked, their indices are not keys.
 */
function refusal(body: object): HttpError | undefined {
  const pending: Array<{ value: object; depth: number }> = [{ value: body, depth: 1 }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth } = next
    if (depth > MAX_BODY_DEPTH) {
      return new HttpError(400, `${MALFORMED}: json: request body nests deeper than ${MAX_BODY_DEPTH} levels`)
    }
    const entries: Iterable<[string | number, unknown]> = Array.isArray(value) ? value.entries() : Object.entries(value)
    for (const [key, child] of entries) {
      const guidance = typeof key === 'string' ? removedKeyGuidance(key) : undefined
      if (guidance !== undefined) return new HttpError(400, guidance)
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth: depth + 1 })
    }
  }
  return undefined
}

/** A catalog route's request schema, read only when a request asks for lenient decoding. */
function requestSchema(request: FastifyRequest): RouteDef['request'] | undefined {
  const route = request.routeOptions.config.route
  return route?.method === 'POST' ? route.request : undefined
}

/**
 * One JSON value per body, whatever the content type. Empty, whitespace-only and `null`
 * bodies, and no body at all, mean "no fields". A removed key is refused with guidance in
 * both modes, before lenient decoding would drop it. Strict decoding rejects unknown keys;
 * the client-version header makes it lenient (unknown keys are dropped before validation).
 * Fastify's own Ajv would silently strip unknown keys, so TypeBox's compiler validates
 * instead. Both happen in the parser and the validator, not in hooks of their own: every
 * POST would pay for one.
 */
export const decoding = fp(async (app: FastifyInstance) => {
  app.setValidatorCompiler((route) => {
    const validate = TypeBoxValidatorCompiler(route)
    // A POST without a body is never parsed: it arrives here as null.
    return route.httpPart === 'body' ? (value: unknown) => validate(value ?? {}) : validate
  })
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (request, text, done) => {
    const source = String(text)
    // No fields: nothing to refuse or to drop (an empty Snapshot, a list call).
    if (source === '{}' || source.trim() === '') return done(null, {})
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
    const refused = refusal(value)
    if (refused) return done(refused, undefined)
    const header = request.headers[CLIENT_VERSION_HEADER]
    const schema = typeof header === 'string' && header !== '' ? requestSchema(request) : undefined
    done(null, schema === undefined ? value : Value.Clean(schema, value))
  })
})

declare module 'fastify' {
  interface FastifyContextConfig {
    route?: RouteDef
  }
}
