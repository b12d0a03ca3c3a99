import { describe, expect, it } from 'vitest'
import { decodeClientFrame, decodeServerFrame, encodeClientFrame, encodeServerFrame, FrameError, type ClientFrame, type ServerFrame } from './stream-frames.js'

const bytes = (...values: number[]) => new Uint8Array(values)

describe('the stream frame codec', () => {
  it('round-trips every server and client frame', () => {
    const server: ServerFrame[] = [
      { type: 'hello', cursor: 2n ** 64n - 1n },
      { type: 'output', data: bytes(104, 105) },
      { type: 'repaint', data: bytes(27, 91, 72) },
      { type: 'resize', rows: 40, cols: 120 },
      { type: 'exit', code: 0 },
    ]
    for (const frame of server) expect(decodeServerFrame(encodeServerFrame(frame))).toEqual(frame)
    const client: ClientFrame[] = [{ type: 'input', data: bytes(3) }, { type: 'resize', rows: 24, cols: 80 }, { type: 'detach' }]
    for (const frame of client) expect(decodeClientFrame(encodeClientFrame(frame))).toEqual(frame)
  })

  it('lays binary frames out as the wire document says', () => {
    expect(encodeServerFrame({ type: 'hello', cursor: 258n })).toEqual(bytes(4, 0, 0, 0, 0, 0, 0, 1, 2))
    expect(encodeClientFrame({ type: 'resize', rows: 24, cols: 256 })).toEqual(bytes(2, 0, 24, 1, 0))
    expect(encodeServerFrame({ type: 'output', data: bytes(65) })).toEqual(bytes(0, 65))
  })

  it('refuses unknown opcodes, bad resizes and unknown text frames with close code 1003', () => {
    for (const frame of [bytes(9, 1), bytes(2, 0, 1), bytes(2, 0, 0, 0, 0), bytes(), '{"type":"shout"}', 'not json']) {
      expect(() => decodeClientFrame(frame)).toThrow(FrameError)
      try {
        decodeClientFrame(frame)
      } catch (error) {
        expect((error as FrameError).code).toBe(1003)
      }
    }
  })
})
