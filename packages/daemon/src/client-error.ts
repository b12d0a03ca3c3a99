import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'

/** How long a refused client may keep sending before its connection is dropped. */
const LINGER_MS = 2_000

function statusOf(error: NodeJS.ErrnoException): number {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408
  if (error.code === 'HPE_HEADER_OVERFLOW') return 431
  return 400
}

/**
 * A request Node's HTTP parser cannot read never reaches Fastify, so both listeners
 * answer it here, still in the envelope. The connection is closed after the answer: a
 * stream that failed to parse has lost its framing.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const status = statusOf(error)
  const body = JSON.stringify({
    data: null,
    error: { message: `cannot read the HTTP request: ${error.message}`, daemon_rejected: true },
  })
  // The client may still be sending (a header block over the limit): what it sends is
  // read and dropped until it closes, since destroying a TCP socket with unread input
  // resets it, and the reset can reach the client before it read this answer.
  socket.resume()
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  )
  setTimeout(() => socket.destroy(), LINGER_MS).unref()
}
