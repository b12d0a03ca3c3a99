import type { Logger } from 'pino'
import type { Config } from '../config/config.js'
import { backoffMs } from '../sessions/recovery.js'
import type { SessionRecord } from '../sessions/record.js'
import type { HookRuntime } from './hook-runtime.js'

/** The longest wait between two looks at a remote that does not answer. */
const RETRY_CAP_MS = 30_000

export interface WatchHost {
  records(): Iterable<SessionRecord>
  /** An operation holds the session: its record is the operation's meanwhile. */
  inFlight(id: string): boolean
}

/**
 * Keeps hook sessions' rows fresh and tells unreachable from dead: every poll interval
 * it reads each remote's row of its session; a remote that does not answer keeps its
 * last-known state, marked `remote_unreachable`, and is asked again with doubling
 * backoff until it answers, when its row is simply live again (nothing is restored).
 * After a restart of the home daemon it finds every remote again from the records and
 * their token files.
 */
export class RemoteWatch {
  private timer: NodeJS.Timeout | undefined
  private readonly retries = new Map<string, { failures: number; nextAt: number }>()
  private readonly looking = new Map<string, Promise<void>>()

  constructor(
    private readonly hook: HookRuntime,
    private readonly host: WatchHost,
    private readonly config: Config,
    private readonly log: Logger,
  ) {}

  start(): void {
    const loop = () => {
      this.round()
      if (this.timer !== undefined) this.timer = setTimeout(loop, this.config.get('daemon_poll_interval'))
    }
    this.timer = setTimeout(loop, 0)
  }

  async close(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    await Promise.all(this.looking.values())
  }

  /** Looks at every hook session that is due, each on its own: a slow remote holds up no other. */
  private round(): void {
    const now = Date.now()
    for (const record of this.host.records()) {
      if (!record.remote?.remote_id || this.host.inFlight(record.id) || this.looking.has(record.id)) continue
      if ((this.retries.get(record.id)?.nextAt ?? 0) > now) continue
      const look = this.look(record).finally(() => this.looking.delete(record.id))
      this.looking.set(record.id, look)
    }
  }

  private async look(record: SessionRecord): Promise<void> {
    try {
      await this.hook.refresh(record)
      if (this.retries.delete(record.id)) this.log.info({ session: record.title }, 'remote answers again')
    } catch (error) {
      const failures = (this.retries.get(record.id)?.failures ?? 0) + 1
      const wait = Math.min(backoffMs(this.config.get('daemon_poll_interval'), failures - 1), RETRY_CAP_MS)
      this.retries.set(record.id, { failures, nextAt: Date.now() + wait })
      if (failures === 1) this.log.warn({ session: record.title, err: (error as Error).message }, 'remote does not answer; retrying with backoff')
      await this.hook.unreachable(record).catch((cause: Error) => this.log.warn({ err: cause }, 'could not mark a remote unreachable'))
    }
  }
}
