import WebSocket from 'ws'
import { messageBytes, openPlane, type ClientTarget } from './plane-socket.js'
import { decodeServerFrame, encodeClientFrame, type ClientFrame, type ServerFrame } from './stream-frames.js'

/** One subscriber of a terminal plane (a session's tab, an account's login): frames in, keys and sizes out. */
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

export { loginStreamPath, streamPath, type StreamOptions } from './stream-path.js'

export const STREAM_SEQ_HEADER = 'x-svc-stream-seq'

/** Opens the terminal plane at `path`; a refusal before the upgrade rejects with its DaemonError. */
export async function openStream(target: ClientTarget, headers: Record<string, string>, path: string): Promise<TerminalStream> {
  const { socket, headers: answer, messages } = await openPlane(target, path, headers, 'stream')
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
