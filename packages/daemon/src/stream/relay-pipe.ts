import WebSocket from 'ws'
import { messageBytes, StreamOpcode } from '@svc/protocol'

/** A client further behind than this stops the relay reading the remote: the remote's own bound then drops the stream. */
export const HIGH_WATER_BYTES = 1024 * 1024

const OUTPUT_OPCODE = Buffer.from([StreamOpcode.output])

/** Output frames as one. */
function joined(frames: Buffer[]): Buffer {
  return frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat([OUTPUT_OPCODE, ...frames.map((frame) => frame.subarray(1))])
}

/**
 * The remote's frames on their way to the client. Output frames that arrive in one turn
 * of the event loop (a relay that fell behind reads several at once) leave as one: the
 * cursor counts bytes, not frames. Every other frame goes as it came, in order. While the
 * client is behind, the remote is not read.
 */
export class RelayPipe {
  /** Output frames not yet sent. */
  private readonly output: Buffer[] = []
  private flushing: NodeJS.Immediate | undefined
  private behind = false

  constructor(
    private readonly client: WebSocket,
    private readonly remote: WebSocket,
  ) {}

  /** One frame from the remote. */
  push(data: WebSocket.RawData, binary: boolean): void {
    const bytes = messageBytes(data)
    if (binary && bytes[0] === StreamOpcode.output) {
      this.output.push(bytes)
      this.flushing ??= setImmediate(() => this.flush())
      return
    }
    this.flush()
    this.send(bytes, binary)
  }

  /** Sends the output still held; the relay calls it before it closes the client. */
  flush(): void {
    clearImmediate(this.flushing)
    this.flushing = undefined
    const frames = this.output.splice(0)
    if (frames.length > 0) this.send(joined(frames), true)
  }

  private send(frame: Buffer, binary: boolean): void {
    if (this.client.readyState !== WebSocket.OPEN) return
    if (this.behind || this.client.bufferedAmount + frame.length <= HIGH_WATER_BYTES) {
      this.client.send(frame, { binary })
      return
    }
    // Behind: the remote is read again once the client has taken all that was sent to it.
    this.behind = true
    this.remote.pause()
    this.client.send(frame, { binary }, () => {
      this.behind = false
      this.remote.resume()
    })
  }
}
