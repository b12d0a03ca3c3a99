import WebSocket, { type WebSocketServer } from 'ws'
import { StreamClose } from '@svc/protocol'

/** How long a client has to answer the close frame before its socket is dropped. */
const CLOSE_GRACE_MS = 500

export const STOPPING_REASON = 'the daemon is stopping'

/**
 * Ends every WebSocket the server accepted (event feeds, terminal streams, web-tab
 * sockets) with 1001, dropping any that does not finish the close handshake in time.
 * A listener's close waits for every connection, and an upgraded socket is no longer
 * one Node's closeAllConnections ends: without this, a client that keeps its socket
 * open holds the daemon's stop for as long as it likes.
 */
export async function closeWebSockets(server: WebSocketServer): Promise<void> {
  await Promise.all(
    [...server.clients].map(async (socket) => {
      if (socket.readyState === WebSocket.CLOSED) return
      const drop = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS)
      const closed = new Promise((resolve) => socket.once('close', resolve))
      if (socket.readyState === WebSocket.OPEN) socket.close(StreamClose.goingAway, STOPPING_REASON)
      else socket.terminate()
      await closed
      clearTimeout(drop)
    }),
  )
}
