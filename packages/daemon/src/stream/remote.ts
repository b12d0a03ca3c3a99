import WebSocket from 'ws'
import { CLIENT_VERSION_HEADER, DaemonError, openPlane, STREAM_SEQ_HEADER, streamPath, SVC_VERSION, UnreachableError, type PlaneSocket } from '@svc/protocol'
import type { RemoteLink } from '@svc/core'
import { HttpError } from '../http-error.js'
import { RelayPipe } from './relay-pipe.js'

/**
 * Where a session's terminal comes from: undefined for a local session (the hub's pty),
 * or the remote that runs it. `session` and `repoId` are the request's, as named.
 */
export type StreamSourceFor = (session: string, repoId: string | undefined) => RemoteLink | undefined

export const localStreams: StreamSourceFor = () => undefined

/** The tab and cursor a stream request names, passed to the remote as they are. */
export interface RemoteStreamQuery {
  tab?: number
  tab_id?: string
  since?: bigint
}

/** The remote's stream, opened before the client's upgrade is accepted. */
export interface RemoteStream {
  plane: PlaneSocket
  /** The remote's start cursor (its `X-SVC-Stream-Seq`), for the client's 101. */
  startCursor: string | undefined
  /** Settles with the remote's close code and reason. */
  closed: Promise<{ code: number; reason: Buffer }>
}

/** The stream path on the remote for this session and query. */
function remotePath(link: RemoteLink, query: RemoteStreamQuery): string {
  return streamPath(link.remoteId, { ...(query.tab_id === undefined ? {} : { tabId: query.tab_id }), tab: query.tab, since: query.since })
}

/**
 * Opens the remote's stream for the link. A refusal there (404 unknown session or tab,
 * 400 bad cursor, 503 warming) is answered with the same status and message; a remote
 * that does not answer is a 500 (the operation failed: the API never answers 502), naming
 * its host (never the token).
 */
export async function openRemoteStream(link: RemoteLink, query: RemoteStreamQuery, timeoutMs = 10_000): Promise<RemoteStream> {
  const headers = { [CLIENT_VERSION_HEADER]: SVC_VERSION, authorization: `Bearer ${link.token}` }
  let plane: PlaneSocket
  try {
    plane = await openPlane({ url: link.endpoint }, remotePath(link, query), headers, 'stream', timeoutMs)
  } catch (error) {
    if (error instanceof DaemonError) throw new HttpError(error.status, error.message)
    if (error instanceof UnreachableError) throw new HttpError(500, `the remote ${new URL(link.endpoint).host} does not answer: ${error.message}`)
    throw error
  }
  const closed = new Promise<{ code: number; reason: Buffer }>((resolve) => {
    if (plane.socket.readyState === WebSocket.CLOSED) resolve({ code: 1006, reason: Buffer.alloc(0) })
    else plane.socket.once('close', (code, reason) => resolve({ code, reason }))
  })
  const cursor = plane.headers[STREAM_SEQ_HEADER]
  return { plane, startCursor: typeof cursor === 'string' ? cursor : undefined, closed }
}

/** Close codes a peer may send: the rest (1005 none, 1006 dropped, ...) are reported only. */
function sendable(code: number): boolean {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999)
}

/** Closes `socket` with the code the other side closed with, or says the other side went away. */
function closeLike(socket: WebSocket, code: number, reason: Buffer): void {
  if (socket.readyState === WebSocket.CLOSED || socket.readyState === WebSocket.CLOSING) return
  if (sendable(code)) socket.close(code, reason)
  else socket.close(1001, 'the remote stream dropped')
}

/**
 * Pipes a client's stream to the remote's, both ways in order (one codec: the remote
 * decodes what the client sends and answers a bad frame itself; the remote's output
 * frames of one turn reach the client as one), each side's close relayed to the other
 * with its code. A slow client stops the relay reading the remote, so the remote's own
 * bound applies.
 */
export function relayStream(client: WebSocket, remote: RemoteStream): void {
  const { socket } = remote.plane
  const pipe = new RelayPipe(client, socket)
  client.on('message', (data: WebSocket.RawData, binary: boolean) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(data, { binary })
  })
  client.on('close', (code: number, reason: Buffer) => closeLike(socket, code, reason))
  // A socket error is followed by close; nothing else to do.
  client.on('error', () => {})
  socket.on('error', () => {})
  void (async () => {
    for await (const [data, binary] of remote.plane.messages) {
      if (client.readyState !== WebSocket.OPEN) break
      pipe.push(data, binary)
    }
    pipe.flush()
    const { code, reason } = await remote.closed
    closeLike(client, code, reason)
  })()
}
