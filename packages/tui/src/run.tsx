import { ReadStream } from 'node:tty'
import { render } from 'ink'
import type { Client } from '@svc/protocol'
import { attach } from './attach.js'
import { App, type Memory, type Outcome } from './components/App.js'
import { Live } from './live.js'
import { LocalDaemon } from './local-daemon.js'

export interface UiOptions {
  client: Client
  /** The daemon's tmux socket: attaching to a local session runs tmux against it. None for a daemon on another machine: every attach is through its stream. */
  tmuxSocket?: string
  /** Offered as a project in the new-session dialog. */
  cwd: string
}

const CLEAR = '\x1b[H\x1b[2J'
const ALTERNATE_SCREEN = `\x1b[?1049h${CLEAR}`
const MAIN_SCREEN = '\x1b[?1049l'
const BELL = '\x07'

/**
 * One showing of the screen, until it quits or lends the terminal to tmux or a terminal
 * stream. It reads the terminal through a stream of its own, destroyed when it closes: a
 * paused stream still reads ahead, and would take keys meant for the attached terminal.
 */
function show(options: UiOptions, live: Live, memory: Memory): Promise<{ outcome: Outcome; memory: Memory }> {
  return new Promise((resolve) => {
    // Ctrl-C unmounts without a word: a quit.
    let closed = { outcome: { quit: true } as Outcome, memory }
    const stdin = new ReadStream(0)
    const onExit = (outcome: Outcome, kept: Memory) => {
      closed = { outcome, memory: kept }
      app.unmount()
    }
    const app = render((
        <LocalDaemon.Provider value={options.tmuxSocket !== undefined}>
          <App client={options.client} live={live} cwd={options.cwd} memory={memory} onExit={onExit} />
        </LocalDaemon.Provider>
      ), { stdin, exitOnCtrlC: true })
    void app.waitUntilExit().then(() => {
      stdin.destroy()
      resolve(closed)
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
  let memory: Memory = { selected: undefined, filter: '', attentionFirst: false, notice: undefined }
  try {
    for (;;) {
      process.stdout.write(ALTERNATE_SCREEN)
      const closed = await show(options, live, memory)
      const { outcome } = closed
      if ('quit' in outcome) return
      // tmux brings its own alternate screen and leaves it on detach; a stream draws where it is, here on the UI's, cleared.
      process.stdout.write('tmuxName' in outcome.attach ? MAIN_SCREEN : CLEAR)
      memory = { ...closed.memory, notice: await attach(options.client, options.tmuxSocket, outcome.attach) }
    }
  } finally {
    process.stdout.write(MAIN_SCREEN)
    live.stop()
  }
}
