/**
 * The terminal stream's wire frames (`GET /v1/sessions/{id}/stream`), both directions.
 * The daemon, the CLI, the terminal UI and the web UI all encode and decode here, so
 * the framing has one definition. Binary frames start with an opcode byte; the rest are
 * JSON text frames. Plain `Uint8Array`/`DataView`, so browsers can use it too.
 */

export const StreamOpcode = {
  /** Server → client: output bytes, counted by the cursor. */
  output: 0x00,
  /** Client → server: key bytes for the terminal. */
  input: 0x01,
  /** Client → server: rows u16 BE, cols u16 BE. */
  resize: 0x02,
  /** Server → client: a one-shot repaint of the current screen, not counted. */
  repaint: 0x03,
  /** Server → client: the cursor (u64 BE) the stream starts at, again whenever it jumps. */
  hello: 0x04,
} as const

export type ServerFrame =
  | { type: 'hello'; cursor: bigint }
  | { type: 'output'; data: Uint8Array }
  | { type: 'repaint'; data: Uint8Array }
  | { type: 'resize'; rows: number; cols: number }
  | { type: 'exit'; code: number }

export type ClientFrame = { type: 'input'; data: Uint8Array } | { type: 'resize'; rows: number; cols: number } | { type: 'detach' }

/** What goes on the socket: bytes for a binary frame, a string for a text frame. */
export type WireFrame = Uint8Array | string

/** WebSocket close codes the stream uses. */
export const StreamClose = {
  normal: 1000,
  goingAway: 1001,
  unknownOpcode: 1003,
  inputFailed: 1011,
} as const

/** A frame that breaks the framing; `code` is the close code to answer it with. */
export class FrameError extends Error {
  constructor(
    message: string,
    readonly code: number = StreamClose.unknownOpcode,
  ) {
    super(message)
    this.name = 'FrameError'
  }
}

function withOpcode(opcode: number, data: Uint8Array): Uint8Array {
  const frame = new Uint8Array(data.length + 1)
  frame[0] = opcode
  frame.set(data, 1)
  return frame
}

function sizeFrame(rows: number, cols: number): Uint8Array {
  const frame = new Uint8Array(5)
  const view = new DataView(frame.buffer)
  frame[0] = StreamOpcode.resize
  view.setUint16(1, rows)
  view.setUint16(3, cols)
  return frame
}

function view(frame: Uint8Array): DataView {
  return new DataView(frame.buffer, frame.byteOffset, frame.byteLength)
}

function parseText(text: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new FrameError('a text frame must be a JSON object')
  }
  if (typeof parsed !== 'object' || parsed === null) throw new FrameError('a text frame must be a JSON object')
  return parsed as Record<string, unknown>
}

const isSize = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 0xffff

export function encodeServerFrame(frame: ServerFrame): WireFrame {
  switch (frame.type) {
    case 'hello': {
      const bytes = new Uint8Array(9)
      bytes[0] = StreamOpcode.hello
      view(bytes).setBigUint64(1, frame.cursor)
      return bytes
    }
    case 'output':
      return withOpcode(StreamOpcode.output, frame.data)
    case 'repaint':
      return withOpcode(StreamOpcode.repaint, frame.data)
    case 'resize':
      return JSON.stringify({ type: 'resize', rows: frame.rows, cols: frame.cols })
    case 'exit':
      return JSON.stringify({ type: 'exit', code: frame.code })
  }
}

export function decodeServerFrame(frame: WireFrame): ServerFrame {
  if (typeof frame === 'string') {
    const message = parseText(frame)
    if (message.type === 'resize' && isSize(message.rows) && isSize(message.cols)) {
      return { type: 'resize', rows: message.rows, cols: message.cols }
    }
    if (message.type === 'exit' && Number.isInteger(message.code)) return { type: 'exit', code: message.code as number }
    throw new FrameError(`unknown text frame ${JSON.stringify(message.type)}`)
  }
  const data = frame.subarray(1)
  switch (frame[0]) {
    case StreamOpcode.hello:
      if (frame.length !== 9) throw new FrameError('a hello frame carries exactly 8 bytes')
      return { type: 'hello', cursor: view(frame).getBigUint64(1) }
    case StreamOpcode.output:
      return { type: 'output', data }
    case StreamOpcode.repaint:
      return { type: 'repaint', data }
    default:
      throw new FrameError(`unknown opcode ${String(frame[0])}`)
  }
}

export function encodeClientFrame(frame: ClientFrame): WireFrame {
  switch (frame.type) {
    case 'input':
      return withOpcode(StreamOpcode.input, frame.data)
    case 'resize':
      return sizeFrame(frame.rows, frame.cols)
    case 'detach':
      return JSON.stringify({ type: 'detach' })
  }
}

/** Decodes what a subscriber sent; a FrameError says which close code answers it. */
export function decodeClientFrame(frame: WireFrame): ClientFrame {
  if (typeof frame === 'string') {
    const message = parseText(frame)
    if (message.type === 'detach') return { type: 'detach' }
    throw new FrameError(`unknown text frame ${JSON.stringify(message.type)}`)
  }
  switch (frame[0]) {
    case StreamOpcode.input:
      return { type: 'input', data: frame.subarray(1) }
    case StreamOpcode.resize: {
      if (frame.length !== 5) throw new FrameError('a resize frame carries exactly 4 bytes')
      const rows = view(frame).getUint16(1)
      const cols = view(frame).getUint16(3)
      if (rows === 0 || cols === 0) throw new FrameError('a resize needs at least one row and one column')
      return { type: 'resize', rows, cols }
    }
    default:
      throw new FrameError(`unknown opcode ${frame.length === 0 ? '(empty frame)' : String(frame[0])}`)
  }
}
