import type { FastifyInstance, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { NotReady, type Core } from '@svc/core'
import type { RouteGroup } from '@svc/protocol'

/** Groups whose answers depend on restored state; health and config answer at once. */
const RESTORED_GROUPS: ReadonlySet<RouteGroup> = new Set(['sessions', 'tabs', 'tasks', 'projects', 'terminal'])

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route outside the catalog (a live plane) whose answers depend on restored state. */
    restored?: boolean
  }
}

/**
 * Session and task routes, and the live planes, answer a retryable 503 until the core has
 * restored its state. The check is a hook of those routes alone, so every other request
 * skips it.
 */
export const warmup = fp(async (app: FastifyInstance, { core }: { core: Core }) => {
  const notReady: onRequestHookHandler = (_request, _reply, done) => done(core.phase !== 'ready' ? new NotReady() : undefined)
  app.addHook('onRoute', (route) => {
    const group = route.config?.route?.group
    if (!route.config?.restored && (group === undefined || !RESTORED_GROUPS.has(group))) return
    route.onRequest = [...[route.onRequest ?? []].flat(), notReady]
  })
})
