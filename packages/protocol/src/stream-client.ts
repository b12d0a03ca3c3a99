import WebSocket from 'ws'
import { messageBytes, openPlane, type ClientTarget } from './plane-socket.js'
import { decodeServerFrame, encodeClientFrame, type ClientFrame, type ServerFrame } from './stream-frames.js'

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

/** Opens the stream; a refusal before the upgrade rejects with its DaemonError. */
export async function openStream(
  target: ClientTarget,
  headers: Record<string, string>,
  session: string,
  options: StreamOptions = {},
): Promise<TerminalStream> {
  const { socket, headers: answer, messages } = await openPlane(target, streamPath(session, options), headers, 'stream')
  const header = answer[STREAM_SEQ_HEADER]
  const send = (frame: ClientFrame) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(encodeClientFrame(frame))
  }
  return {
    startCursor: typeof header === 'string' && /^\d+$/.test(header) ? BigInt(header) : 0n,
    closed: new Promise<number>((resolve) => {
      if (socket.readyState === WebSocket.CLOSED) resolve(1006)
      else socket.once('close', (code) => resolve(code))
    }),
    input: (data) => send({ type: 'input', data: typeof data === 'string' ? Buffer.from(data) : data }),
    resize: (rows, cols) => send({ type: 'resize', rows, cols }),
    detach: () => send({ type: 'detach' }),
    close: () => socket.close(),
    async *[Symbol.asyncIterator]() {
      for await (const [data, binary] of messages) {
        const bytes = messageBytes(data)
        yield decodeServerFrame(binary ? bytes : bytes.toString('utf8'))
      }
    },
  }
}
