import { execFile } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { alive as running } from '@svc/protocol'
import { Launcher } from './launcher.js'

/**
 * Server options applied with every session creation, so the first one gets them too,
 * and at the daemon's start, so a server an older daemon left running gets them as well.
 */
const SERVER_OPTIONS: string[][] = [
  // Killing the last session must not stop the server: a respawn right after would race
  // its exit ("server exited unexpectedly").
  ['set-option', '-s', 'exit-empty', 'off'],
  // A dead agent leaves its pane (and its last words) behind: the daemon reports it dead.
  ['set-option', '-g', 'remain-on-exit', 'on'],
  // Detached sessions raise the activity flag on output; the poll loop reads and clears it.
  ['set-option', '-g', 'monitor-activity', 'on'],
  ['set-option', '-g', 'activity-action', 'none'],
  ['set-option', '-g', 'visual-activity', 'off'],
  // Attaching must not import the attaching terminal's variables: panes are default-deny.
  ['set-option', '-g', 'update-environment', ''],
  ['set-option', '-g', 'history-limit', '10000'],
  // Terminals (the TUI's attach, the browser's stream) show only the agent's screen.
  ['set-option', '-g', 'status', 'off'],
]

/** The variables the tmux server itself starts with; panes get theirs through `-e`. */
const SERVER_ENV_NAMES = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'TZ', 'TMPDIR']

const SEPARATOR = '\u0001svc-capture\u0001'
/** Marks list-clients lines among the panes in a poll's output. */
const CLIENT_LINE = '\u0001client'

export interface PaneState {
  session: string
  dead: boolean
  deadStatus: number | undefined
  /** Output since the flag was last cleared (detached sessions only). */
  activity: boolean
  /** Some client is attached, so the activity flag says nothing. */
  hasClient: boolean
  /** A terminal other than the daemon's own stream clients is attached: a person. */
  attached: boolean
}

/** What a pane shows now: its text, where its cursor is, and its size. */
export interface Screen {
  text: string
  cursor: { x: number; y: number }
  rows: number
  cols: number
  /** Rows a client needs to show the whole window: the pane's plus the status line's. */
  clientRows: number
}

export interface NewSession {
  name: string
  cwd: string
  env: Record<string, string>
  /** argv of the pane's process. */
  command: string[]
  width?: number
  height?: number
  /** The session goes when its command ends, instead of keeping the dead pane (a login flow). */
  endsWithCommand?: boolean
}

/** How long a kill waits for its panes' processes to exit. */
const STOP_WAIT_MS = 3_000

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // Gone with the hangup already.
  }
}

export class TmuxError extends Error {
  constructor(
    message: string,
    /** The server is not running, or runs with no session: every session is gone. */
    readonly noServer: boolean,
    /** What the commands before the failing one printed. */
    readonly stdout: string,
  ) {
    super(message)
    this.name = 'TmuxError'
  }
}

/** Exact-match target: without `=`, tmux would also match a session by prefix. */
export const sessionTarget = (name: string) => `=${name}`
export const paneTarget = (name: string) => `=${name}:`

/**
 * The daemon's private tmux server (`tmux -S $SERVICE_HOME/tmux.sock`). Every method is
 * one tmux process; several commands run in one process joined with `;`.
 */
export class Tmux {
  private readonly serverEnv: NodeJS.ProcessEnv
  /** Starts the poll loop's tmux processes (looks and captures), which run every tick. */
  private readonly launcher: Launcher
  /** Process ids of the daemon's own tmux clients (terminal streams): not a person attached. */
  readonly ownClients = new Set<number>()

  constructor(
    readonly socket: string,
    source: NodeJS.ProcessEnv = process.env,
  ) {
    this.serverEnv = Object.fromEntries(SERVER_ENV_NAMES.flatMap((name) => (source[name] ? [[name, source[name]]] : [])))
    this.launcher = new Launcher(this.serverEnv)
  }

  private args(commands: string[][]): string[] {
    // -u: without a UTF-8 locale in the environment (an agent server started over ssh or
    // by an init system often has none), tmux writes tabs in -F output and non-ASCII in
    // captures as "_", and every listing would read as no session at all.
    return ['-u', '-S', this.socket, ...commands.flatMap((command, i) => (i === 0 ? command : [';', ...command]))]
  }

  private failure(commands: string[][], message: string, stdout: string): TmuxError {
    // A server left with no session at all (exit-empty is off) has no current target for list commands.
    const noServer = /no server running|error connecting to|No such file or directory|no current target/.test(message)
    return new TmuxError(`tmux ${commands[0]?.[0] ?? ''}: ${message}`, noServer, stdout)
  }

  /** Runs commands in one tmux process and returns its standard output. */
  run(commands: string[][], input?: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = execFile('tmux', this.args(commands), { env: this.serverEnv, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (!error) return resolve(stdout)
        reject(this.failure(commands, (stderr || error.message).trim(), stdout))
      })
      if (input !== undefined) child.stdin?.end(input)
    })
  }

  /** `run` for commands without input (the poll loop's reads, new sessions), started through the launcher shell. */
  private async launch(commands: string[][]): Promise<string> {
    const { code, stdout, stderr } = await this.launcher.run(['tmux', ...this.args(commands)])
    if (code === 0) return stdout
    throw this.failure(commands, stderr.trim() || `exited with status ${code}`, stdout)
  }

  /** Stops the launcher shell. */
  close(): void {
    this.launcher.close()
  }

  async newSession(spec: NewSession): Promise<void> {
    const env = Object.entries(spec.env).flatMap(([key, value]) => ['-e', `${key}=${value}`])
    const size = ['-x', String(spec.width ?? 200), '-y', String(spec.height ?? 50)]
    await this.launch([
      ...SERVER_OPTIONS,
      ['new-session', '-d', '-s', spec.name, '-c', spec.cwd, ...size, ...env, '--', ...spec.command],
      ...(spec.endsWithCommand ? [['set-option', '-w', '-t', `${sessionTarget(spec.name)}:`, 'remain-on-exit', 'off']] : []),
    ])
  }

  /** Applies the server options to a running server; with no server, the next session creation does. */
  async configureServer(): Promise<void> {
    try {
      await this.run(SERVER_OPTIONS)
    } catch (error) {
      if (!(error instanceof TmuxError && error.noServer)) throw error
    }
  }

  /** Kills the named sessions; ones already gone are fine. */
  /**
   * Ends the sessions, and their panes' process groups: tmux only hangs up on a pane, and
   * some agents (Gemini CLI) ignore the hangup and would run on with nobody to see them.
   * Waits (a little) for them to be gone: what an agent saves on its way out is on disk
   * once this returns, before an archive moves or pushes its work.
   */
  async killSessions(names: string[]): Promise<void> {
    const alive = new Set(await this.sessionNames())
    const doomed = names.filter((name) => alive.has(name))
    if (doomed.length === 0) return
    const pids = await this.run(doomed.map((name) => ['list-panes', '-s', '-t', sessionTarget(name), '-F', '#{pane_pid}']))
    await this.run(doomed.map((name) => ['kill-session', '-t', sessionTarget(name)]))
    const groups = pids.split('\n').map(Number).filter((each) => each > 1)
    for (const pid of groups) signalGroup(pid, 'SIGTERM')
    const deadline = Date.now() + STOP_WAIT_MS
    // The pane's own process: a zombie its tmux server has yet to reap counts as gone.
    while (groups.some((pid) => running(pid)) && Date.now() < deadline) await sleep(20)
  }

  async sessionNames(): Promise<string[]> {
    try {
      return (await this.run([['list-sessions', '-F', '#{session_name}']])).split('\n').filter(Boolean)
    } catch (error) {
      if (error instanceof TmuxError && error.noServer) return []
      throw error
    }
  }

  /**
   * One process for the whole fleet: every pane's state, then the activity flags of
   * `clear` are reset, atomically with the listing (tmux runs a command list without
   * reading pane output in between). A session that vanished stops the clearing early,
   * which only costs an extra capture on the next tick.
   */
  async poll(clear: string[]): Promise<Map<string, PaneState>> {
    const format = '#{session_name}\t#{pane_dead}\t#{pane_dead_status}\t#{window_activity_flag}'
    let output: string
    try {
      output = await this.launch([
        ['list-clients', '-F', `${CLIENT_LINE}\t#{client_pid}\t#{session_name}`],
        ['list-panes', '-a', '-F', format],
        ...clear.map((name) => ['kill-session', '-C', '-t', sessionTarget(name)]),
      ])
    } catch (error) {
      if (!(error instanceof TmuxError)) throw error
      if (error.noServer) return new Map()
      if (!error.message.includes("can't find session")) throw error
      output = error.stdout
    }
    const lines = output.split('\n').map((line) => line.split('\t'))
    const clients = lines.filter((fields) => fields.length === 3 && fields[0] === CLIENT_LINE)
    const withClient = new Set(clients.map((fields) => fields[2]))
    const withPerson = new Set(clients.filter((fields) => !this.ownClients.has(Number(fields[1]))).map((fields) => fields[2]))
    const panes = new Map<string, PaneState>()
    for (const fields of lines) {
      const [session, dead, status, activity] = fields
      if (fields.length !== 4 || !session || panes.has(session)) continue
      panes.set(session, {
        session,
        dead: dead === '1',
        deadStatus: status === '' || status === undefined ? undefined : Number(status),
        activity: activity === '1',
        hasClient: withClient.has(session),
        attached: withPerson.has(session),
      })
    }
    return panes
  }

  /** The visible text of each named pane, in one process; a missing pane is absent from the result. */
  async capture(names: string[], history = 0): Promise<Map<string, string>> {
    const captured = new Map<string, string>()
    if (names.length === 0) return captured
    const start = history > 0 ? ['-S', String(-history)] : []
    const commands = names.flatMap((name) => [
      ['display-message', '-p', SEPARATOR],
      ['capture-pane', '-p', '-J', ...start, '-t', paneTarget(name)],
    ])
    let output: string
    try {
      output = await this.launch(commands)
    } catch {
      // A pane that vanished mid-list: capture the rest one by one.
      if (names.length === 1) return captured
      for (const name of names) for (const [key, text] of await this.capture([name], history)) captured.set(key, text)
      return captured
    }
    const parts = output.split(`${SEPARATOR}\n`).slice(1)
    names.forEach((name, i) => {
      if (parts[i] !== undefined) captured.set(name, parts[i])
    })
    return captured
  }

  /**
   * The pane as it is now: its visible text (with `history` lines of scroll-back above it;
   * with `escapes`, the colours and attributes as terminal escapes), cursor and size.
   */
  async screen(name: string, { history = 0, escapes = false } = {}): Promise<Screen> {
    const target = paneTarget(name)
    const output = await this.run([
      ['display-message', '-p', '-t', target, '#{cursor_x} #{cursor_y} #{pane_height} #{pane_width} #{status}'],
      ['capture-pane', '-p', ...(escapes ? ['-e'] : []), ...(history > 0 ? ['-S', String(-history)] : []), '-t', target],
    ])
    const newline = output.indexOf('\n')
    const [x, y, rows, cols, status] = output.slice(0, newline).split(' ')
    // `status` is off, on (one line) or a number of lines.
    const statusRows = status === 'off' ? 0 : status === 'on' ? 1 : Number(status)
    return {
      text: output.slice(newline + 1),
      cursor: { x: Number(x), y: Number(y) },
      rows: Number(rows),
      cols: Number(cols),
      clientRows: Number(rows) + statusRows,
    }
  }

  /** Clears the composer and pastes `text` (bracketed when the program asked for it). */
  async paste(name: string, text: string): Promise<void> {
    const buffer = `svc-${process.pid}-${Date.now()}`
    const target = paneTarget(name)
    // tmux 3.3 crashes, taking every session with it, when pasting into a dead pane.
    const dead = await this.run(
      [
        ['load-buffer', '-b', buffer, '-'],
        ['send-keys', '-t', target, 'C-u'],
        ['display-message', '-p', '-t', target, '#{pane_dead}'],
        ['if-shell', '-F', '-t', target, '#{pane_dead}', `delete-buffer -b ${buffer}`, `paste-buffer -p -d -b ${buffer} -t ${target}`],
      ],
      text,
    )
    if (dead.trim() === '1') throw new TmuxError(`tmux paste-buffer: the pane of ${name} is dead (its program exited)`, false, '')
  }

  async sendKeys(name: string, ...keys: string[]): Promise<void> {
    await this.run([['send-keys', '-t', paneTarget(name), ...keys]])
  }
}
