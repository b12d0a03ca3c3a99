import type { Logger } from 'pino'
import { readIfExists, writeFileAtomic } from '../infra/durable.js'
import { SerialQueue } from '../serial.js'
import { stillLeads, stopGroup, type LedGroup } from '../infra/process-group.js'

/**
 * The process groups of running watch commands, kept in a file beside tasks.json: a
 * daemon killed with SIGKILL cannot stop them, so the next start reaps what is listed.
 */
export class WatchLedger {
  private readonly groups = new Map<number, string>()
  private readonly writes = new SerialQueue()

  constructor(
    private readonly path: string,
    private readonly log: Logger,
  ) {}

  // add and remove do not wait for the file: save() is queued, logs a failure, and each save writes the whole list.
  add(pgid: number, command: string): void {
    this.groups.set(pgid, command)
    void this.save()
  }

  remove(pgid: number): void {
    this.groups.delete(pgid)
    void this.save()
  }

  private save(): Promise<void> {
    const entries: LedGroup[] = [...this.groups].map(([pgid, command]) => ({ pgid, command }))
    return this.writes
      .run(() => writeFileAtomic(this.path, `${JSON.stringify(entries)}\n`))
      .catch((error: Error) => this.log.warn({ err: error }, 'cannot record watch process groups'))
  }

  /** Stops every listed group a previous daemon left running. */
  async reap(): Promise<void> {
    let entries: LedGroup[] = []
    try {
      entries = JSON.parse((await readIfExists(this.path)) ?? '[]') as LedGroup[]
    } catch (error) {
      this.log.warn({ err: error, file: this.path }, 'unreadable watch ledger ignored')
    }
    for (const entry of entries) {
      if (!(await stillLeads(entry))) continue
      this.log.warn(entry, 'stopping a watch command left by a previous daemon')
      await stopGroup(entry.pgid).catch((error: Error) => this.log.error({ err: error, ...entry }, 'could not stop it'))
    }
    await this.save()
  }

  /** Resolves once the ledger on disk matches the running groups. */
  idle(): Promise<void> {
    return this.writes.idle()
  }
}
