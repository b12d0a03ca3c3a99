import type { TerminalStream } from '@svc/protocol'

/** Ctrl-\: leaves the stream. (tmux's Ctrl-b d would only detach the daemon's shared client, which attaches again.) */
export const DETACH_KEY = 0x1c

/** How an attached terminal ended: the person detached, the tab's process exited, or the daemon closed the stream. */
export type AttachEnd = 'detached' | { exit: number } | 'closed'

/** The terminal lent to a stream: process.stdin by default; the TUI lends a reader of its own (a paused one reads ahead). */
export interface AttachedTerminal {
  stdin: NodeJS.ReadStream
  stdout: NodeJS.WriteStream
}

/**
 * Makes this terminal a subscriber of `stream` until it detaches (the detach key) or the
 * terminal goes away: raw keys in, the daemon's frames out, the size kept in step.
 * Resolves with how it ended. Shared by the CLI's attaching commands and the TUI's
 * attach to a hook session (both through the daemon's terminal stream).
 */
export async function runAttached(stream: TerminalStream, { stdin, stdout }: AttachedTerminal = process): Promise<AttachEnd> {
  const resize = () => stream.resize(stdout.rows, stdout.columns)
  let detached = false
  const keys = (chunk: Buffer) => {
    const at = chunk.indexOf(DETACH_KEY)
    if (at > 0) stream.input(chunk.subarray(0, at))
    if (at === -1) return stream.input(chunk)
    detached = true
    stream.detach()
  }
  stdin.setRawMode(true)
  stdin.resume()
  stdin.on('data', keys)
  stdout.on('resize', resize)
  resize()
  try {
    for await (const frame of stream) {
      if (frame.type === 'output' || frame.type === 'repaint') stdout.write(frame.data)
      if (frame.type === 'exit') return { exit: frame.code }
    }
    return detached ? 'detached' : 'closed'
  } finally {
    stdin.off('data', keys)
    stdout.off('resize', resize)
    stdin.setRawMode(false)
    stdin.pause()
    // Leave the terminal as a shell expects it: cursor shown, attributes and scroll region reset.
    stdout.write('\x1b[?25h\x1b[0m\x1b[r\r\n')
  }
}
