import { spawn } from 'node:child_process'
import type { Logger } from 'pino'
import type { Config } from '../config/config.js'
import type { DomainEvent } from './bus.js'

/** At most one notification per session in this window; later calls for it are dropped. */
export const NOTIFY_INTERVAL_MS = 30_000
/** A notify command still running after this is killed. */
const NOTIFY_TIMEOUT_MS = 30_000
const STDERR_KEPT = 2048

/**
 * Runs `notify_command` (through `$SHELL -c`) with each `session.attention` frame on
 * stdin, rate-limited per session. Never awaited: a slow or failing command only costs
 * a line in daemon.log.
 */
export class Notifier {
  private readonly lastAt = new Map<string, number>()

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  readonly listener = (event: DomainEvent): void => {
    if (event.type === 'session.killed') this.lastAt.delete(event.data.id)
    if (event.type !== 'session.attention') return
    const command = this.config.get('notify_command')
    if (command.trim() === '') return
    const { id, title, reason } = event.data
    const now = Date.now()
    if (now - (this.lastAt.get(id) ?? -Infinity) < NOTIFY_INTERVAL_MS) {
      this.log.debug({ session: title, reason }, 'notification skipped: one was sent for this session less than 30 s ago')
      return
    }
    this.lastAt.set(id, now)
    this.run(command, event.frame, title)
  }

  private run(command: string, frame: string, session: string): void {
    const child = spawn(this.env.SHELL || '/bin/sh', ['-c', command], {
      env: this.env,
      stdio: ['pipe', 'ignore', 'pipe'],
      timeout: NOTIFY_TIMEOUT_MS,
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.slice(0, STDERR_KEPT - stderr.length)
    })
    // A command that does not read its stdin closes the pipe: that is its choice, not a failure.
    child.stdin.on('error', () => {})
    child.stdin.end(`${frame}\n`)
    child.on('error', (error) => this.log.warn({ err: error, session }, 'notify_command could not start'))
    child.on('close', (code, signal) => {
      if (code === 0) return
      this.log.warn({ session, code, signal, stderr: stderr.trim() }, 'notify_command failed')
    })
  }
}
