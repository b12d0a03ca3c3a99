import { on } from 'node:events'
import WebSocket from 'ws'
import type { ClientTarget } from './client.js'
import { DaemonError, UnreachableError } from './client.js'
import type { EnvelopeT } from './envelope.js'
import { decodeServerFrame, encodeClientFrame, type ClientFrame, type ServerFrame } from './stream-frames.js'
import { CLIENT_VERSION_HEADER, SVC_VERSION } from './version.js'

export interface StreamOptions {
  /** The session's repository, when `session` is a title shared by several. */
  repoId?: string
  /** The tab's ordinal (0, the agent, by default). */
  tab?: number
  /** The tab's id: wins over `tab` and never falls back. */
  tabId?: string
  /** Replay from this cursor when the ring still holds it. */
  since?: bigint
}

/** One subscriber of a session tab's terminal: frames in, keys and sizes out. */
export interface TerminalStream extends AsyncIterable<ServerFrame> {
  /** The start cursor the daemon announced in `X-SVC-Stream-Seq`. */
  readonly startCursor: bigint
  input(data: Uint8Array | string): void
  resize(rows: number, cols: number): void
  /** Leaves politely: the daemon closes the stream. */
  detach(): void
  close(): void
  /** Settles with the close code once the socket is closed. */
  readonly closed: Promise<number>
}

export const STREAM_SEQ_HEADER = 'x-svc-stream-seq'

/** The stream's path and query for a session (an id, or a title with `repoId`). */
export function streamPath(session: string, options: StreamOptions = {}): string {
  const query = new URLSearchParams()
  if (options.repoId) query.set('repo_id', options.repoId)
  if (options.tab !== undefined) query.set('tab', String(options.tab))
  if (options.tabId) query.set('tab_id', options.tabId)
  if (options.since !== undefined) query.set('since', String(options.since))
  const search = query.toString()
  return `/v1/sessions/${encodeURIComponent(session)}/stream${search ? `?${search}` : ''}`
}

function socketUrl(target: ClientTarget, path: string): string {
  if ('socketPath' in target) return `ws+unix://${target.socketPath}:${path}`
  return new URL(path, target.url.replace(/^http/, 'ws')).toString()
}

/** The refusal the daemon answered instead of upgrading, as the typed client reports it. */
function refusal(status: number, text: string): DaemonError {
  try {
    const envelope = JSON.parse(text) as EnvelopeT<unknown>
    if (envelope.error) return new DaemonError(status, envelope.error, 'stream')
  } catch {
    // Not the daemon's envelope: reported with the raw text below.
  }
  return new DaemonError(status, { message: `unexpected HTTP ${status} reply: ${text.trim().slice(0, 200) || '(empty body)'}` }, 'stream')
}

/** Opens the stream; a refusal before the upgrade rejects with its DaemonError. */
export function openStream(target: ClientTarget, session: string, options: StreamOptions = {}): Promise<TerminalStream> {
  const headers: Record<string, string> = { [CLIENT_VERSION_HEADER]: SVC_VERSION }
  if ('url' in target && target.token) headers.authorization = `Bearer ${target.token}`
  const socket = new WebSocket(socketUrl(target, streamPath(session, options)), { headers })
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
  // Frames that arrive before the caller starts iterating are kept by `on`.
  const messages = on(socket, 'message', { close: ['close'] }) as AsyncIterableIterator<[WebSocket.RawData, boolean]>
  const send = (frame: ClientFrame) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(encodeClientFrame(frame))
  }
  return new Promise((resolve, reject) => {
    let startCursor = 0n
    socket.once('upgrade', (response) => {
      const header = response.headers[STREAM_SEQ_HEADER]
      if (typeof header === 'string' && /^\d+$/.test(header)) startCursor = BigInt(header)
    })
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => reject(refusal(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))))
    })
    socket.once('error', (error: NodeJS.ErrnoException) =>
      reject(new UnreachableError(`cannot open the stream of ${session}: ${error.message}`, error.code)),
    )
    socket.once('open', () =>
      resolve({
        startCursor,
        closed,
        input: (data) => send({ type: 'input', data: typeof data === 'string' ? Buffer.from(data) : data }),
        resize: (rows, cols) => send({ type: 'resize', rows, cols }),
        detach: () => send({ type: 'detach' }),
        close: () => socket.close(),
        async *[Symbol.asyncIterator]() {
          for await (const [data, binary] of messages) {
            const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)
            yield decodeServerFrame(binary ? bytes : bytes.toString('utf8'))
          }
        },
      }),
    )
  })
}
