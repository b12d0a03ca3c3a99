import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import type { WatchLedger } from './ledger.js'
import { spawnGroup, stopGroup } from '../infra/process-group.js'

/** What every watch command runs with. */
export interface WatchRuntime {
  /** The filtered environment (the panes' allowlist and session_env_passthrough), read at each start. */
  env(): NodeJS.ProcessEnv
  ledger: WatchLedger
}

/** How a crashing watch command is restarted: doubling backoff, and a give-up after a streak of failures. */
export const WATCH_RESTART = {
  firstBackoffMs: 500,
  maxBackoffMs: 30_000,
  /** Consecutive failures that stop the watcher. */
  maxFailures: 4,
  /** A run that lasted this long was healthy: the failure streak starts over. */
  healthyMs: 60_000,
}

const STDERR_TAIL = 400

interface Exit {
  code?: number | null
  signal?: NodeJS.Signals | null
  error?: Error
}

function describe(exit: Exit, stderr: string, cwd: string): string {
  const how = exit.error
    ? existsSync(cwd)
      ? `could not start: ${exit.error.message}`
      : `could not start: project_path ${cwd} does not exist`
    : exit.signal
      ? `killed by ${exit.signal}`
      : `exit code ${exit.code}`
  const tail = stderr.trim().split('\n').slice(-3).join(' | ')
  return tail ? `${how}: ${tail}` : how
}

/**
 * One watch task's command: `$SHELL -c watch_cmd` in its own process group with
 * project_path as working directory, each non-empty stdout line handed to `line`. A
 * failing command is restarted with backoff until the failure streak gives up; `ended`
 * then gets the reason. `stop` returns once the process group has exited.
 */
export class Watcher {
  private readonly stopping = new AbortController()
  private readonly supervised: Promise<void>

  constructor(
    readonly command: string,
    readonly cwd: string,
    private readonly line: (text: string) => void,
    private readonly ended: (reason: string) => void,
    private readonly runtime: WatchRuntime,
    private readonly log: Logger,
  ) {
    this.supervised = this.supervise().catch((error: Error) => this.log.error({ err: error, command }, 'watch supervision failed'))
  }

  async stop(): Promise<void> {
    this.stopping.abort()
    await this.supervised
  }

  private async supervise(): Promise<void> {
    let failures = 0
    while (!this.stopping.signal.aborted) {
      const started = Date.now()
      const { exit, stderr } = await this.runOnce()
      if (this.stopping.signal.aborted) return
      const what = describe(exit, stderr, this.cwd)
      if (exit.code === 0) return this.ended(`watch command exited (${what}); RestartTask starts it again`)
      failures = Date.now() - started >= WATCH_RESTART.healthyMs ? 1 : failures + 1
      if (failures >= WATCH_RESTART.maxFailures) {
        return this.ended(`watch command gave up after ${failures} failures in a row (last: ${what}); RestartTask starts it again`)
      }
      const backoff = Math.min(WATCH_RESTART.firstBackoffMs * 2 ** (failures - 1), WATCH_RESTART.maxBackoffMs)
      this.log.warn({ command: this.command, failures, backoff_ms: backoff, reason: what }, 'watch command failed; restarting')
      // A stop aborts the wait (AbortError) and ends the loop.
      await sleep(backoff, undefined, { signal: this.stopping.signal }).catch(() => {})
    }
  }

  /** One run of the command, until it exits or the watcher stops; its whole group is gone when this resolves. */
  private async runOnce(): Promise<{ exit: Exit; stderr: string }> {
    const child = spawnGroup(this.command, this.cwd, this.runtime.env())
    if (child.pid !== undefined) this.runtime.ledger.add(child.pid, this.command)
    let stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_TAIL)))
    createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (text) => {
      // A blank line carries no event; lines after a stop belong to no one.
      if (text.trim() !== '' && !this.stopping.signal.aborted) this.line(text)
    })
    const exited = new Promise<Exit>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }))
      child.once('error', (error) => resolve({ error }))
    })
    const stopped = new Promise<void>((resolve) => this.stopping.signal.addEventListener('abort', () => resolve(), { once: true }))
    await Promise.race([exited, stopped])
    // On a stop the whole tree goes; on an exit, whatever the shell left behind, so a
    // restart never overlaps the old tree.
    if (child.pid !== undefined) {
      await stopGroup(child.pid)
      this.runtime.ledger.remove(child.pid)
    }
    const exit = await exited
    return { exit, stderr }
  }
}
