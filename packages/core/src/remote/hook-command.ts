import { spawn } from 'node:child_process'
import type { Readable } from 'node:stream'
import { isAbsolute, resolve } from 'node:path'
import { commandWords } from '../infra/command-words.js'

/** How long launch_cmd and delete_cmd may take before their process group is killed. */
export const HOOK_TIMEOUT_MS = 120_000
/** Lines of a hook's stderr kept for error messages. */
const STDERR_LINES = 12
/** How long stdout may stay open after the hook exited (a background child holding it), unless a run says otherwise. */
const DRAIN_MS = 200

export interface HookRun {
  /** Exit code; undefined when it was killed by a signal or the timeout. */
  code: number | undefined
  stdout: string
  /** The last lines of stderr. */
  stderrTail: string
  timedOut: boolean
}

/**
 * A configured hook command line as argv: split on whitespace, the way svc splits
 * command lines elsewhere; a relative path (one with a `/`) resolves against the
 * repository root, a bare name is looked up on PATH.
 */
export function hookArgv(commandLine: string, root: string): string[] {
  const [program = '', ...args] = commandWords(commandLine)
  return [program.includes('/') && !isAbsolute(program) ? resolve(root, program) : program, ...args]
}

function tail(text: string): string {
  return text.trimEnd().split('\n').slice(-STDERR_LINES).join('\n')
}

/** What a run gets besides its command line. */
export interface HookIo {
  /** Its stdin: a text, or a stream such as a file's. */
  input?: string | Readable
  /** Told the process group it runs in. */
  onSpawn?: (pgid: number) => void
  /**
   * How long its stdout may stay open after it exited. An ssh multiplexing client exits
   * on the remote's exit status while its master may still be writing the output to the
   * pipe it was handed, so ssh runs wait longer for that output.
   */
  drainMs?: number
}

/**
 * Runs a hook directly (no shell) in its own process group, with only `env` and its
 * input on its stdin; on timeout the whole group is killed. Never rejects: a program
 * that cannot start is a run with no exit code and the reason as its stderr.
 */
export function runHook(argv: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number, { input, onSpawn, drainMs = DRAIN_MS }: HookIo = {}): Promise<HookRun> {
  return new Promise((settle) => {
    const child = spawn(argv[0] as string, argv.slice(1), { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
    if (child.pid !== undefined) onSpawn?.(child.pid)
    // A program that exits without reading all of its input is answered by its exit, not an EPIPE.
    child.stdin.on('error', () => {})
    if (typeof input === 'object') input.on('error', () => child.stdin.destroy()).pipe(child.stdin)
    else child.stdin.end(input)
    let stdout = ''
    let stderr = ''
    let timedOut = false
    let done = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-16_384)))
    const finish = (code: number | undefined) => {
      if (done) return
      done = true
      clearTimeout(timer)
      child.stdout.destroy()
      child.stderr.destroy()
      settle({ code, stdout, stderrTail: tail(stderr), timedOut })
    }
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-(child.pid as number), 'SIGKILL')
      } catch {
        // Already gone.
      }
      finish(undefined)
    }, timeoutMs)
    child.on('error', (error) => {
      stderr += `cannot run ${argv[0]}: ${error.message}`
      finish(undefined)
    })
    child.on('exit', (code) => {
      // Output still in the pipes is read; a background child keeping stdout open is not waited for.
      // Timers run before the poll that reads the pipe: a loop busy past the drain would end the run with its output unread.
      const drained = setTimeout(() => setImmediate(() => finish(code ?? undefined)), drainMs)
      child.stdout.once('close', () => {
        clearTimeout(drained)
        finish(code ?? undefined)
      })
      if (child.stdout.closed) finish(code ?? undefined)
    })
  })
}

/** Test hook: SVC_HOOK_TIMEOUT_MS shortens the 120 s a hook may take. */
export function hookTimeoutMs(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.SVC_HOOK_TIMEOUT_MS)
  return Number.isInteger(ms) && ms > 0 ? ms : HOOK_TIMEOUT_MS
}
