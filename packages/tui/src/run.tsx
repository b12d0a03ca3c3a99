import { ReadStream } from 'node:tty'
import { render } from 'ink'
import type { Client } from '@svc/protocol'
import { attachTmux } from './attach.js'
import { App, type Memory, type Outcome } from './components/App.js'
import { Live } from './live.js'

export interface UiOptions {
  client: Client
  /** The daemon's tmux socket: attaching runs tmux against it. */
  tmuxSocket: string
  /** Offered as a project in the new-session dialog. */
  cwd: string
}

const ALTERNATE_SCREEN = '\x1b[?1049h\x1b[H\x1b[2J'
const MAIN_SCREEN = '\x1b[?1049l'
const BELL = '\x07'

/**
 * One showing of the screen, until it quits or lends the terminal to tmux. It reads the
 * terminal through a stream of its own, destroyed when it closes: a paused stream still
 * reads ahead, and would take keys meant for tmux.
 */
function show(options: UiOptions, live: Live, memory: Memory): Promise<Outcome> {
  return new Promise((resolve) => {
    let outcome: Outcome = { quit: true }
    const stdin = new ReadStream(0)
    const app = render(<App client={options.client} live={live} cwd={options.cwd} memory={memory} onExit={(chosen) => ((outcome = chosen), app.unmount())} />, {
      stdin,
      exitOnCtrlC: true,
    })
    void app.waitUntilExit().then(() => {
      stdin.destroy()
      resolve(outcome)
    })
  })
}

/**
 * The terminal UI, until the person quits: the screen on the alternate screen, made
 * again after each attach; the terminal bell once per session that asks for its user.
 */
export async function runUi(options: UiOptions): Promise<void> {
  const live = new Live(options.client)
  live.onFrame = (frame) => {
    if (frame.type === 'session.attention') process.stdout.write(BELL)
  }
  live.start()
  const memory: Memory = { selected: undefined, filter: '', attentionFirst: false, notice: undefined }
  try {
    for (;;) {
      process.stdout.write(ALTERNATE_SCREEN)
      const outcome = await show(options, live, memory)
      process.stdout.write(MAIN_SCREEN)
      if ('quit' in outcome) return
      const { label, ...target } = outcome.attach
      const code = await attachTmux(options.client, { ...target, tmuxSocket: options.tmuxSocket })
      memory.notice = code === 0 ? { text: `back from ${label}`, error: false } : { text: `tmux attach to ${label} failed`, error: true }
    }
  } finally {
    live.stop()
  }
}
