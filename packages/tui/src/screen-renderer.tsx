import { Writable } from 'node:stream'
import { render } from 'ink'
import { sampleFleet } from './sample.js'
import { sessionRows } from './state/rows.js'
import type { Session } from './state/types.js'
import { Screen } from './components/Screen.js'

/** A terminal that keeps only the last frame written to it. */
class Terminal extends Writable {
  frame = ''
  constructor(
    readonly columns: number,
    readonly rows: number,
  ) {
    super()
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.frame = chunk.toString('utf8')
    done()
  }
}

/**
 * The main screen rendered off-terminal, for the render bench: `update` takes a whole new
 * fleet through everything a live update goes through (rows, layout, output) and returns
 * the frame it wrote.
 */
export function screenRenderer(size: { width: number; height: number }) {
  const terminal = new Terminal(size.width, size.height)
  const screen = (sessions: Session[]) => {
    const fleet = sampleFleet(sessions)
    const rows = sessionRows(fleet, { filter: '', attentionFirst: false })
    const selected = sessions[0]
    return (
      <Screen
        rows={rows}
        sessions={fleet.sessions.size}
        attention={0}
        selected={selected}
        preview={'fake-agent ready\n> '}
        connection="live"
        filter=""
        notice={undefined}
        now={Date.now()}
        {...size}
      />
    )
  }
  // debug: every update is written at once and whole, instead of throttled.
  const app = render(screen([]), { stdout: terminal as unknown as NodeJS.WriteStream, debug: true, patchConsole: false, exitOnCtrlC: false })
  return {
    update(sessions: Session[]): string {
      app.rerender(screen(sessions))
      return terminal.frame
    },
    close: () => app.unmount(),
  }
}
