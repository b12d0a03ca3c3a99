import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { NotReady, type Core } from '@svc/core'
import type { RouteGroup } from '@svc/protocol'

/** Groups whose answers depend on restored state; health and config answer at once. */
const RESTORED_GROUPS: ReadonlySet<RouteGroup> = new Set(['sessions', 'tabs', 'tasks', 'projects'])

/** Session and task routes answer a retryable 503 until the core has restored its state. */
export const warmup = fp(async (app: FastifyInstance, { core }: { core: Core }) => {
  app.addHook('onRequest', (request, _reply, done) => {
    const group = request.routeOptions.config.route?.group
    done(core.phase !== 'ready' && group !== undefined && RESTORED_GROUPS.has(group) ? new NotReady() : undefined)
  })
})
