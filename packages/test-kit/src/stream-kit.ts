import type { ServerFrame, TerminalStream } from '@svc/protocol'
import { waitFor } from './wait.js'
import type { TestDaemon } from './harness.js'

/** Everything one subscriber received, read in the background. */
export interface StreamRecording {
  frames: ServerFrame[]
  /** The output bytes received (not the repaint), in order. */
  output(): Buffer
  /** Output and repaints as text, for "the screen shows X" checks. */
  text(): string
  /** Waits until a frame matches. */
  until(accept: (frame: ServerFrame) => boolean, timeoutMs?: number): Promise<ServerFrame>
  /** Waits until the text shows `needle`. */
  shows(needle: string, timeoutMs?: number): Promise<void>
  /** Settles when the stream ends. */
  done: Promise<void>
}

export function record(stream: TerminalStream): StreamRecording {
  const frames: ServerFrame[] = []
  const done = (async () => {
    for await (const frame of stream) frames.push(frame)
  })()
  const bytes = (types: string[]) =>
    Buffer.concat(frames.flatMap((frame) => (types.includes(frame.type) && 'data' in frame ? [Buffer.from(frame.data)] : [])))
  return {
    frames,
    output: () => bytes(['output']),
    text: () => bytes(['output', 'repaint']).toString('utf8'),
    until: (accept, timeoutMs) => waitFor(() => frames.find(accept), timeoutMs),
    async shows(needle, timeoutMs) {
      await waitFor(() => bytes(['output', 'repaint']).toString('utf8').includes(needle) || undefined, timeoutMs)
    },
    done,
  }
}

/** The start cursor of a recording (its first hello). */
export function helloCursor(recording: StreamRecording): bigint {
  const hello = recording.frames.find((frame) => frame.type === 'hello')
  if (hello?.type !== 'hello') throw new Error('no hello frame yet')
  return hello.cursor
}

/** The session's terminal stream reaches its agent (the fake agent): its screen shows, and a line typed there is received; then detached. */
export async function typeThrough(daemon: TestDaemon, id: string, line: string): Promise<void> {
  const stream = await daemon.client.stream(id)
  const seen = record(stream)
  await seen.shows('fake-agent ready')
  stream.input(`${line}\r`)
  await seen.shows(`received: ${line}`)
  stream.detach()
  await stream.closed
}
