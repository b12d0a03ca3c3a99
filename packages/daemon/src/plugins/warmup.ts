import type { FastifyContextConfig, FastifyRequest } from 'fastify'
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

function waitsForRestore(config: FastifyContextConfig): boolean {
  const group = config.route?.group
  return config.restored === true || (group !== undefined && RESTORED_GROUPS.has(group))
}

/**
 * Session and task routes, and the live planes, answer a retryable 503 until the core has
 * restored its state. The gate asks last (see network-safety.ts), so the route is read
 * only while the daemon warms up: once ready, a request pays one comparison, not a hook.
 */
export function warmupRefusal(core: Core): (request: FastifyRequest) => NotReady | undefined {
  return (request) => (core.phase === 'ready' || !waitsForRestore(request.routeOptions.config) ? undefined : new NotReady())
}
