import { execFileSync, spawn } from 'node:child_process'
import { join } from 'node:path'
import { CLI_MAIN } from '@svc/test-kit'

export interface RunOptions {
  cwd?: string
}

/** The shell command line that runs svc with these arguments (each single-quoted). */
function svcLine(args: string[]): string {
  return [process.execPath, CLI_MAIN, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ')
}

/** Runs svc under a pseudo-terminal, as a person would see it; resolves with its exit code and output. */
export function runInTerminal(args: string[], env: Record<string, string>, options: RunOptions = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', svcLine(args), '/dev/null'], {
      cwd: options.cwd,
      env: { ...process.env, ...env, COLUMNS: '200' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    child.on('close', (code) => resolve({ code, out: out.replace(/\r/g, '') }))
  })
}

/**
 * A real terminal for svc: a pane of the test's own tmux server (not the daemon's),
 * driven with send-keys and read with capture-pane.
 */
export class TestTerminal {
  private static opened = 0
  private readonly socket: string

  /**
   * Each terminal has its own server socket in `dir`: `kill-server` returns before the old
   * server is gone, and a new session on its socket would reach the dying server.
   */
  constructor(dir: string) {
    this.socket = join(dir, `terminal-${++TestTerminal.opened}.sock`)
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8' })
  }

  /** Runs svc in a 120x40 pane; when it ends, the pane says "attach exited <code>" and stays. */
  run(args: string[], env: Record<string, string>): void {
    const vars = Object.entries(env).map(([key, value]) => `${key}='${value}'`)
    const line = `env -u TMUX ${vars.join(' ')} ${svcLine(args)}; echo "attach exited $?"; sleep 600`
    this.tmux('new-session', '-d', '-s', 'test', '-x', '120', '-y', '40', 'sh', '-c', line)
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', '=test:', ...keys)
  }

  text(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-100', '-t', '=test:')
  }

  resize(cols: number, rows: number): void {
    this.tmux('resize-window', '-t', '=test:', '-x', String(cols), '-y', String(rows))
  }

  close(): void {
    this.tmux('kill-server')
  }
}
