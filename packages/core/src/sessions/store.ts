import { mkdir, rename } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { readJsonFiles, removeFileDurable, writeFileAtomic, writeFileDurable, type JsonFiles } from '../infra/durable.js'
import { KeyedQueue } from '../serial.js'
import { fromStored, type SessionRecord } from './record.js'

/**
 * The records under `dir` as they are on disk, changing nothing: the store's load, and
 * what `svc doctor` reads while the daemon may be running or not.
 */
export async function readSessionRecords(dir: string): Promise<JsonFiles<SessionRecord>> {
  const { values, unreadable } = await readJsonFiles<SessionRecord>(dir)
  return { values: values.map(fromStored), unreadable }
}

/**
 * One file per session under `sessions/`: a write costs what the changed session
 * costs, not the whole fleet, which matters when every tick records pane activity.
 */
export class SessionStore {
  private readonly writes = new KeyedQueue()

  constructor(
    readonly dir: string,
    private readonly log: Logger,
  ) {}

  private file(id: string): string {
    return join(this.dir, `${id}.json`)
  }

  /** Every stored record; an unreadable file is moved aside and reported, never dropped silently. */
  async loadAll(): Promise<SessionRecord[]> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 })
    const { values: records, unreadable } = await readSessionRecords(this.dir)
    for (const { path, error } of unreadable) {
      const aside = `${path}.corrupt-${Date.now()}`
      await rename(path, aside)
      this.log.error({ err: error, file: aside }, `unreadable session record moved aside to ${aside}`)
    }
    return records
  }

  /**
   * Writes one record. Acknowledged mutations are durable (fsync); observations from
   * the poll loop are only atomic, which a process crash cannot tear either.
   */
  save(record: SessionRecord, durable = true): Promise<void> {
    const text = `${JSON.stringify(record, null, 2)}\n`
    return this.writes.run(record.id, () => (durable ? writeFileDurable : writeFileAtomic)(this.file(record.id), text))
  }

  remove(id: string): Promise<void> {
    return this.writes.run(id, () => removeFileDurable(this.file(id)))
  }
}
