import type { FastifyInstance } from 'fastify'
import { PREVIEW_AUTH_PATH, type PreviewAuthAnswer } from '@svc/protocol'
import type { PreviewOrigins } from '../webtab/origins.js'

/**
 * `GET /v1/preview-auth?session=&tab=` → `{origin}`: a tab's preview origin, handed out
 * only behind the API's gate (its label is the credential), `""` when the preview
 * listener is off or the tab has no origin. Not an envelope route, as the API document lists it.
 */
export function previewAuthRoutes(origins: PreviewOrigins, previewPort: () => number | undefined) {
  return async (app: FastifyInstance) => {
    app.get<{ Querystring: { session?: string; tab?: string } }>(PREVIEW_AUTH_PATH, (request, reply): PreviewAuthAnswer => {
      const port = previewPort()
      const { session = '', tab = '' } = request.query
      void reply.header('cache-control', 'no-store')
      return { origin: port === undefined ? '' : origins.originOf(session, tab, port) }
    })
  }
}
