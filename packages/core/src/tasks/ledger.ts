import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { Logger } from 'pino'
import { readIfExists, writeFileAtomic } from '../infra/durable.js'
import { SerialQueue } from '../serial.js'
import { groupAlive, stopGroup } from './process-group.js'

const run = promisify(execFile)

interface Entry {
  pgid: number
  command: string
}

/** Whether `pgid` still leads a process running `command` (and not a stranger that reused the pid). */
async function stillOurs({ pgid, command }: Entry): Promise<boolean> {
  if (!(await groupAlive(pgid))) return false
  const args = await run('ps', ['-o', 'args=', '-p', String(pgid)]).then(
    ({ stdout }) => stdout.trim(),
    () => '',
  )
  return args.includes(command)
}

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
    const entries: Entry[] = [...this.groups].map(([pgid, command]) => ({ pgid, command }))
    return this.writes
      .run(() => writeFileAtomic(this.path, `${JSON.stringify(entries)}\n`))
      .catch((error: Error) => this.log.warn({ err: error }, 'cannot record watch process groups'))
  }

  /** Stops every listed group a previous daemon left running. */
  async reap(): Promise<void> {
    let entries: Entry[] = []
    try {
      entries = JSON.parse((await readIfExists(this.path)) ?? '[]') as Entry[]
    } catch (error) {
      this.log.warn({ err: error, file: this.path }, 'unreadable watch ledger ignored')
    }
    for (const entry of entries) {
      if (!(await stillOurs(entry))) continue
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
