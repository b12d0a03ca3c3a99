import type { WebsocketPluginOptions } from '@fastify/websocket'
import { MAX_BODY_BYTES } from '@svc/protocol'

/**
 * The body cap holds for WebSocket messages too: ws would otherwise buffer a message of up
 * to 100 MiB before any handler sees it. A longer one is refused (1009) from its frame
 * header, before its payload is read. For the API's listeners and the preview listener.
 */
export const WEBSOCKET_OPTIONS: WebsocketPluginOptions = { options: { maxPayload: MAX_BODY_BYTES } }
