import type { FastifyInstance } from 'fastify'
import { PREVIEW_AUTH_PATH, type EnvelopeT, type PreviewAuthAnswer } from '@svc/protocol'
import type { PreviewOrigins } from '../webtab/origins.js'
import { requiredParam } from './query.js'

/**
 * `GET /v1/preview-auth?session=&tab=` → the envelope of `{origin}`: a tab's preview
 * origin, handed out only behind the API's gate (its label is the credential), `""` when
 * the preview listener is off or the tab has no origin (defaults.md, "Corrections to
 * earlier decisions"). A missing `session` or `tab` is a 400; an unknown one a 500, as on
 * any route.
 */
export function previewAuthRoutes(origins: PreviewOrigins, previewPort: () => number | undefined) {
  return async (app: FastifyInstance) => {
    app.get(PREVIEW_AUTH_PATH, (request, reply): EnvelopeT<PreviewAuthAnswer> => {
      void reply.header('cache-control', 'no-store')
      const query = request.query as Record<string, unknown>
      const session = requiredParam(query, 'session', "the session's id")
      const tab = requiredParam(query, 'tab', "the tab's stable id")
      return { data: { origin: origins.originOf(session, tab, previewPort()) }, error: null }
    })
  }
}
