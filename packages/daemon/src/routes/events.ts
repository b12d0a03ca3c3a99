import type { FastifyInstance } from 'fastify'
import type { Core } from '@svc/core'
import { EVENTS_PATH } from '@svc/protocol'
import { EventSubscribers } from '../event-subscribers.js'

/**
 * `GET /v1/events`: the event plane, a WebSocket (not in the route catalog). The gate
 * (Host, Origin, token) has run before the upgrade; errors before it are envelopes.
 */
export function eventRoutes(core: Core) {
  return async (app: FastifyInstance) => {
    const subscribers = new EventSubscribers(core.events, core.bootId)
    app.addHook('onClose', async () => subscribers.close())
    app.route({
      method: 'GET',
      url: EVENTS_PATH,
      // The feed has no replay: a subscriber before the state is restored would miss it.
      config: { restored: true },
      handler: (_request, reply) =>
        reply
          .code(426)
          .header('upgrade', 'websocket')
          .send({ data: null, error: { message: `${EVENTS_PATH} is a WebSocket: connect with "Upgrade: websocket"`, daemon_rejected: true } }),
      wsHandler: (socket) => subscribers.add(socket),
    })
  }
}
