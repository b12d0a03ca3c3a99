import { on } from 'node:events'
import type { IncomingHttpHeaders } from 'node:http'
import WebSocket from 'ws'
import { DaemonError, UnreachableError } from './client-errors.js'
import type { EnvelopeT } from './envelope.js'

export type ClientTarget = { socketPath: string } | { url: string; token?: string | undefined }

/** An open WebSocket to one of the daemon's live planes (the event feed, a terminal stream). */
export interface PlaneSocket {
  socket: WebSocket
  /** The headers of the daemon's upgrade answer. */
  headers: IncomingHttpHeaders
  /**
   * Every message from the moment the socket was made, ending when it closes: the first
   * frame can arrive in the same read as the upgrade answer, before `open` is handled.
   */
  messages: AsyncIterableIterator<[WebSocket.RawData, boolean]>
}

/** Where `ws` dials a plane: through the Unix socket, or the TCP listener. */
function planeUrl(target: ClientTarget, path: string): string {
  if ('socketPath' in target) return `ws+unix://${target.socketPath}:${path}`
  const url = new URL(path, target.url)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  return url.href
}

/** The refusal the daemon answered instead of upgrading, as the typed client reports it. */
function refusal(status: number, text: string, plane: string, path: string): DaemonError {
  try {
    const envelope = JSON.parse(text) as EnvelopeT<unknown>
    if (envelope.error) return new DaemonError(status, envelope.error, plane)
  } catch {
    // Not the daemon's envelope: reported with the raw text below.
  }
  const detail = text.trim().slice(0, 200) || '(empty body)'
  return new DaemonError(status, { message: `unexpected HTTP ${status} reply to the upgrade of ${path}: ${detail}` }, plane)
}

/**
 * Opens a plane (`plane` names it in errors, as a route name would). It rejects with a DaemonError when the daemon refuses the upgrade (its
 * envelope), or an UnreachableError when nothing answers (within `timeoutMs`, if given).
 */
export function openPlane(target: ClientTarget, path: string, headers: Record<string, string>, plane: string, timeoutMs?: number): Promise<PlaneSocket> {
  const socket = new WebSocket(planeUrl(target, path), { headers, ...(timeoutMs === undefined ? {} : { handshakeTimeout: timeoutMs }) })
  const messages = on(socket, 'message', { close: ['close'] }) as AsyncIterableIterator<[WebSocket.RawData, boolean]>
  return new Promise((resolve, reject) => {
    let upgradeHeaders: IncomingHttpHeaders = {}
    socket.once('upgrade', (response) => (upgradeHeaders = response.headers))
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        reject(refusal(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), plane, path))
        // After the rejection: ending a socket still connecting reports an error of its own.
        socket.terminate()
      })
    })
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const where = 'socketPath' in target ? target.socketPath : target.url
      reject(new UnreachableError(`cannot reach the daemon at ${where}: ${error.message}`, error.code))
    })
    socket.once('open', () => resolve({ socket, headers: upgradeHeaders, messages }))
  })
}

/** A message's bytes, however `ws` delivered them. */
export function messageBytes(data: WebSocket.RawData): Buffer {
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)
}
