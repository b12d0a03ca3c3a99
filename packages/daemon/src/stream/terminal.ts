import { spawn, type IPty } from 'node-pty'
import { encodeServerFrame, type ServerFrame, type WireFrame } from '@svc/protocol'
import type { Screen, Tmux } from '@svc/core'
import { OutputPacer } from './output-pacer.js'
import { ReplayRing } from './ring.js'

/** How long a terminal outlives its last subscriber, so a quick reconnect finds it warm. */
export const LINGER_MS = 3_000

/** How long a tmux client must have stayed attached before its detach is answered by attaching again. */
const REATTACH_AFTER_MS = 1_000

/** The variables the attaching tmux client runs with; the panes never see them (update-environment is empty). */
const CLIENT_ENV_NAMES = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'TMPDIR']

/** One socket subscribed to a terminal. */
export interface Subscriber {
  send(frame: WireFrame): void
  /** The terminal is gone: the subscriber has had the exit frame and is closed. */
  end(): void
}

/** Where a subscriber starts: decided before the upgrade, so the header can carry it. */
export interface Start {
  cursor: number
  /** The screen as it was at `cursor`; none when replaying from the ring. */
  repaint: Buffer | undefined
}

/** The screen as terminal bytes: cleared, drawn line by line, the cursor put back. */
export function repaintOf(screen: Screen): Buffer {
  const lines = screen.text.replace(/\n$/, '').split('\n')
  return Buffer.from(`\x1b[H\x1b[2J${lines.join('\r\n')}\x1b[${screen.cursor.y + 1};${screen.cursor.x + 1}H`)
}

/**
 * One tmux session's terminal as the daemon watches it: a pty running `tmux attach` on
 * the daemon's server, shared by every subscriber, with the replay ring of its output.
 */
export class Terminal {
  readonly subscribers = new Set<Subscriber>()
  readonly ring = new ReplayRing()
  /** Output joins the ring as it is sent, so a subscriber joining meanwhile gets held output once, from the broadcast. */
  private readonly pacer = new OutputPacer((data) => {
    this.ring.push(data)
    this.broadcast(encodeServerFrame({ type: 'output', data }))
  })
  private pty: IPty
  private size: { rows: number; cols: number }
  private linger: NodeJS.Timeout | undefined
  private exitCode: number | undefined
  /** False from the tmux client's exit until it is attached again or the terminal ends. */
  private clientRunning = false
  /** Keys typed while the client attaches again: they go to the new one. */
  private pendingInput: Buffer[] = []
  private closing = false
  private attachedAt = 0

  constructor(
    readonly tmuxName: string,
    private readonly tmux: Tmux,
    size: { rows: number; cols: number },
    private readonly gone: (terminal: Terminal) => void,
  ) {
    this.size = size
    this.pty = this.attach()
    this.idle()
  }

  private attach(): IPty {
    const env = Object.fromEntries(CLIENT_ENV_NAMES.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])))
    // -u: the terminal is UTF-8 even when the daemon's environment names no UTF-8 locale.
    const pty = spawn('tmux', ['-u', '-S', this.tmux.socket, 'attach-session', '-t', `=${this.tmuxName}`], {
      name: 'xterm-256color',
      cols: this.size.cols,
      rows: this.size.rows,
      env,
      // Bytes, not strings: the cursor counts bytes, and a split UTF-8 sequence must survive.
      encoding: null,
    })
    this.tmux.ownClients.add(pty.pid)
    this.attachedAt = Date.now()
    this.clientRunning = true
    for (const keys of this.pendingInput.splice(0)) pty.write(keys)
    pty.onData((data) => this.pacer.push(data as unknown as Buffer))
    pty.onExit(({ exitCode }) => {
      this.clientRunning = false
      this.tmux.ownClients.delete(pty.pid)
      void this.clientExited(exitCode)
    })
    return pty
  }

  get alive(): boolean {
    return this.exitCode === undefined
  }

  /** The start of a new subscriber: the ring's replay from `since` when it holds it, else now and a repaint. */
  async start(since: number | undefined): Promise<Start> {
    if (since !== undefined && this.ring.since(since) !== undefined) return { cursor: since, repaint: undefined }
    // The cursor is taken before the capture: output in between is sent again, never lost.
    const cursor = this.ring.cursor
    const screen = await this.tmux.screen(this.tmuxName, { escapes: true })
    return { cursor, repaint: repaintOf(screen) }
  }

  /** Subscribes from `start`; the returned cursor is where the stream really starts. */
  join(subscriber: Subscriber, start: Start): number {
    const replay = this.ring.since(start.cursor)
    // Output beyond the ring arrived since the start was planned: the stream jumps to now.
    const cursor = replay === undefined ? this.ring.cursor : start.cursor
    const frames: ServerFrame[] = [{ type: 'hello', cursor: BigInt(cursor) }, { type: 'resize', ...this.size }]
    if (start.repaint) frames.push({ type: 'repaint', data: start.repaint })
    if (replay?.length) frames.push({ type: 'output', data: replay })
    for (const frame of frames) subscriber.send(encodeServerFrame(frame))
    clearTimeout(this.linger)
    this.subscribers.add(subscriber)
    if (!this.alive) this.endAll()
    return cursor
  }

  leave(subscriber: Subscriber): void {
    if (this.subscribers.delete(subscriber) && this.subscribers.size === 0) this.idle()
  }

  /**
   * Keys from any subscriber. While the tmux client attaches again they wait for it; once
   * the terminal has ended this throws, where node-pty would drop them silently.
   */
  input(data: Uint8Array): void {
    if (!this.alive) throw new Error('the terminal has exited')
    const keys = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    this.pacer.keyTyped()
    if (this.clientRunning) this.pty.write(keys)
    else this.pendingInput.push(Buffer.from(keys))
  }

  /** A size for every subscriber; a client attached again later starts at it. */
  resize(rows: number, cols: number): void {
    if (!this.alive) return
    this.size = { rows, cols }
    if (this.clientRunning) this.resizeClient()
    this.pacer.flush()
    this.broadcast(encodeServerFrame({ type: 'resize', rows, cols }))
  }

  /**
   * node-pty throws (EBADF) on a pty whose process has exited before it says so: the
   * client ended a moment ago (its session killed, say), and clientExited attaches again
   * at `size` or ends the terminal.
   */
  private resizeClient(): void {
    try {
      this.pty.resize(this.size.cols, this.size.rows)
    } catch (error) {
      if (!/EBADF|exited/.test((error as Error).message)) throw error
    }
  }

  close(): void {
    this.closing = true
    clearTimeout(this.linger)
    if (this.alive) this.pty.kill()
  }

  private idle(): void {
    clearTimeout(this.linger)
    this.linger = setTimeout(() => this.close(), LINGER_MS)
  }

  private broadcast(frame: WireFrame): void {
    for (const subscriber of this.subscribers) subscriber.send(frame)
  }

  /**
   * The tmux client ended. A subscriber may have typed tmux's detach key, which ends the
   * one client every subscriber shares while the tab runs on: then the client attaches
   * again (it redraws the screen) instead of ending everyone's stream. A client that
   * could not stay attached for a second is not tried again.
   */
  private async clientExited(code: number): Promise<void> {
    if (!this.closing && this.subscribers.size > 0 && Date.now() - this.attachedAt >= REATTACH_AFTER_MS) {
      const tabRuns = await this.tmux.screen(this.tmuxName).then(
        () => true,
        () => false,
      )
      if (tabRuns && !this.closing) {
        this.pty = this.attach()
        return
      }
    }
    this.exitCode = code
    this.pendingInput = []
    clearTimeout(this.linger)
    this.gone(this)
    this.endAll()
  }

  private endAll(): void {
    this.pacer.flush()
    const frame = encodeServerFrame({ type: 'exit', code: this.exitCode ?? 0 })
    for (const subscriber of this.subscribers) {
      subscriber.send(frame)
      subscriber.end()
    }
    this.subscribers.clear()
  }
}
