import type { FastifyInstance } from 'fastify'
import { CONFIG_ASSISTANT_PATH, Empty, type ConfigAssistantAnswer } from '@svc/protocol'
import type { ConfigAssistant } from '@svc/core'

/**
 * `POST /v1/config-assistant` → `{session_name}` once the assistant is briefed, and
 * `DELETE` → `{ok: true}`: beside the catalog (its stream is in stream.ts). Leftovers of
 * a previous daemon are reaped while it restores, so these wait for that.
 */
export function configAssistantRoutes(assistant: ConfigAssistant) {
  return async (app: FastifyInstance) => {
    app.post(CONFIG_ASSISTANT_PATH, { schema: { body: Empty }, config: { restored: true } }, async () => {
      const data: ConfigAssistantAnswer = { session_name: await assistant.open() }
      return { data, error: null }
    })
    app.delete(CONFIG_ASSISTANT_PATH, { config: { restored: true } }, async () => {
      await assistant.reap()
      return { data: { ok: true }, error: null }
    })
  }
}
