import { statSync, type Stats } from 'node:fs'
import { open, stat, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { openIfExists, readFrom, stageFileDurable, statIfExists, syncDirectory, writeFileDurable, type StagedFile } from '../infra/durable.js'
import { withFileLock } from '../infra/filelock.js'
import { SerialQueue } from '../serial.js'
import { applyEntry, entryBetween, entryLine, fingerprint, parseJournal, snapshotLine, type JournalEntry } from './journal.js'
import { EMPTY_DOCUMENT, type TaskDocument, type TaskRecord } from './record.js'
import { corrupt, decodeSnapshot, recordOf, snapshotText } from './snapshot.js'

/** The journal is compacted into tasks.json once it is larger than this and than tasks.json. */
const COMPACT_AT = 256 * 1024

/** The store as read or written, and the identity of the files it came from. */
export interface Loaded {
  doc: TaskDocument
  /** Both files' inode, size and mtime: every change to either shows. */
  version: string
}

/** A change to the document: `next` is committed as one journal line; a throw commits nothing. */
export type Change<T> = (doc: TaskDocument) => { result: T; next?: TaskDocument }

/** A committed change: the store after its whole batch, this change's result, and the document right after it. */
export type Committed<T> = Loaded & { result: T; after: TaskDocument }

interface Waiting {
  change: Change<unknown>
  resolve: (committed: Committed<unknown>) => void
  reject: (error: unknown) => void
}

/** What this process last read or wrote of both files. */
interface Seen {
  snapshot: string
  snapshotSize: number
  /** Of tasks.json's content: the journal's header must name it, or the journal is stale. */
  fingerprint: string
  /** tasks.json was written by a store (it has a snapshot_id), not by hand: a journal may continue it. */
  own: boolean
  journal: string
  journalInode: number | undefined
  /** Journal bytes applied: through its last complete line. */
  applied: number
  /** The journal continues another tasks.json (replaced by hand): none of it applies. */
  stale: boolean
}

function versionOf(info: Stats | undefined): string {
  return info ? `${info.ino}:${info.size}:${info.mtimeMs}` : 'absent'
}

/** `tasks.journal` beside `tasks.json`. */
export function journalPathOf(path: string): string {
  return join(dirname(path), `${basename(path, '.json')}.journal`)
}

/**
 * The task store: tasks.json, a compacted snapshot, and tasks.journal, one line per
 * mutation since, so a write costs the same however many tasks there are. Shared by
 * every process that writes it (this daemon, a second one, a script): writes take
 * tasks.json.lock, catch up with what others wrote, and append.
 *
 * Mutations waiting together are committed together: one append and one fdatasync for
 * the batch, each resolved only once that is done. The journal is folded back into
 * tasks.json once it outgrows it, the new file written aside while batches go on, and
 * on demand (the daemon's start and stop).
 */
export class TaskStore {
  readonly journalPath: string
  private readonly lockPath: string
  /** Every read and write of the files, in order: a catch-up, a batch, a compaction's swap. */
  private readonly io = new SerialQueue()
  private waiting: Waiting[] = []
  private doc: TaskDocument = structuredClone(EMPTY_DOCUMENT)
  private seen: Seen | undefined
  /** Set while this process holds the lock: the files change only through it then. */
  private locked = false
  private reading: Promise<void> | undefined
  /** The compaction under way, if any. */
  private compaction: Promise<void> | undefined

  constructor(
    readonly path: string,
    private readonly compactionFailed: (error: Error) => void = () => {},
  ) {
    this.journalPath = journalPathOf(path)
    this.lockPath = `${path}.lock`
  }

  /** The store as on disk now. Cheap when nothing changed: two stats. */
  async load(): Promise<Loaded> {
    // A batch of this process is about to land or landing: what it started from is the newest durable state.
    if (this.seen && (this.locked || this.waiting.length > 0)) return this.loaded()
    const joined = this.reading !== undefined
    try {
      await this.read()
    } catch (error) {
      // A read begun before this call may have caught the file half-written (an editor's
      // truncate, then its write): its failure is not this call's; read again.
      if (!joined) throw error
      await this.read()
    }
    return this.loaded()
  }

  /** The catch-up under way, or a new one: callers meanwhile share it. */
  private read(): Promise<void> {
    this.reading ??= this.io.run(() => this.catchUp(false)).finally(() => (this.reading = undefined))
    return this.reading
  }

  /**
   * The version on disk now, to tell whether a cached read is stale. Synchronous: two stats
   * of local files take microseconds, where their trip through the thread pool was a
   * wake-up of another thread and of this one on every cached read.
   */
  currentVersion(): string {
    const [snapshot, journal] = [this.path, this.journalPath].map((path) => statSync(path, { throwIfNoEntry: false }))
    return `${versionOf(snapshot)}|${versionOf(journal)}`
  }

  /**
   * Runs `change` on the current document under the file lock, in a batch with every
   * other change waiting meanwhile. `next` is committed with store_generation bumped; a
   * throw commits nothing and fails this change alone. Resolves once it is durable.
   */
  transact<T>(change: Change<T>): Promise<Committed<T>> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ change, resolve, reject } as Waiting)
      if (this.waiting.length === 1) void this.io.run(() => this.commitWaiting())
    })
  }

  /**
   * Folds the journal into tasks.json, so the journal is empty; a tasks.json written by
   * hand is rewritten as the store writes it, so that the first write need not do it.
   */
  async compact(): Promise<void> {
    await this.compaction
    await this.load()
    await this.compactNow()
  }

  /** Resolves once every change submitted so far is settled. */
  idle(): Promise<void> {
    return this.io.idle()
  }

  private loaded(): Loaded {
    const seen = this.seen
    return { doc: this.doc, version: seen ? `${seen.snapshot}|${seen.journal}` : 'absent|absent' }
  }

  private async locking<T>(work: () => Promise<T>): Promise<T> {
    return withFileLock(this.lockPath, async () => {
      this.locked = true
      try {
        await this.catchUp(true)
        return await work()
      } finally {
        this.locked = false
      }
    })
  }

  private async commitWaiting(): Promise<void> {
    const batch = this.waiting.splice(0)
    let settle: Array<(loaded: Loaded) => void>
    try {
      settle = await this.locking(() => this.apply(batch))
    } catch (error) {
      for (const entry of batch) entry.reject(error)
      return
    }
    const loaded = this.loaded()
    for (const done of settle) done(loaded)
    if (!this.compaction && this.outgrown()) {
      this.compaction = this.compactNow()
        .catch((error: Error) => this.compactionFailed(error))
        .finally(() => (this.compaction = undefined))
    }
  }

  /** The journal is larger than tasks.json (and than a floor): replaying it costs more than rewriting. */
  private outgrown(): boolean {
    const seen = this.seen
    return seen !== undefined && seen.applied > Math.max(COMPACT_AT, seen.snapshotSize)
  }

  /** Applies each change in order and appends their lines in one write; returns how to settle each. */
  private async apply(batch: Waiting[]): Promise<Array<(loaded: Loaded) => void>> {
    let doc = this.doc
    const lines: string[] = []
    const settle = batch.map(({ change, resolve, reject }) => {
      try {
        const { result, next } = change(doc)
        if (next !== undefined) {
          const entry = entryBetween(doc, next, doc.store_generation + 1)
          doc = applyEntry(doc, entry, (task) => task as unknown as TaskRecord)
          lines.push(entryLine(entry))
        }
        const after = doc
        return (loaded: Loaded) => resolve({ ...loaded, result, after })
      } catch (error) {
        return () => reject(error)
      }
    })
    if (lines.length > 0) {
      // A journal only continues a tasks.json a store wrote; one written by hand is rewritten first.
      if (this.seen?.applied === 0 && !this.seen.own) await this.writeSnapshot()
      await this.append(lines.join(''))
      this.doc = doc
    }
    return settle
  }

  /** Appends `text` to the journal (after its header when it is empty) and makes it durable. */
  private async append(text: string): Promise<void> {
    const seen = this.seen as Seen
    const file = await open(this.journalPath, 'a', 0o600)
    let info: Stats
    try {
      await file.appendFile(seen.applied === 0 ? snapshotLine(seen.fingerprint) + text : text)
      await file.datasync()
      info = await file.stat()
    } catch (error) {
      // Nothing of a failed batch may count: its changes were reported failed.
      await file.truncate(seen.applied).catch(() => {})
      throw error
    } finally {
      await file.close()
    }
    if (seen.journalInode !== info.ino) await syncDirectory(dirname(this.journalPath))
    this.seen = { ...seen, journal: versionOf(info), journalInode: info.ino, applied: info.size }
  }

  /**
   * Writes the document as it is now to a new tasks.json aside, while batches go on,
   * then puts it in place under the lock and keeps in the journal only what came after.
   */
  private async compactNow(): Promise<void> {
    const seen = this.seen
    if (!seen || (seen.applied === 0 && seen.own)) return
    const text = snapshotText(this.doc)
    const staged = await stageFileDurable(this.path, text)
    try {
      await this.io.run(() => this.locking(() => this.install(seen, text, staged)))
    } finally {
      await staged.discard()
    }
  }

  /**
   * Under the lock: the journal first names the new tasks.json (so that it continues
   * the old file and the new), then the new file is renamed into place, then the
   * journal is replaced by its lines the new file lacks. A crash between any two steps
   * leaves files that read the same.
   */
  private async install(captured: Seen, text: string, staged: StagedFile): Promise<void> {
    const seen = this.seen as Seen
    // Another writer compacted or replaced the files meanwhile: what was written aside is stale.
    if (seen.snapshot !== captured.snapshot || seen.journalInode !== captured.journalInode || seen.stale) return
    const mark = fingerprint(text)
    const end = seen.applied
    await this.append(snapshotLine(mark))
    await staged.install()
    const journal = await open(this.journalPath, 'r')
    let since: Buffer
    try {
      since = await readFrom(journal, captured.applied, end)
    } finally {
      await journal.close()
    }
    const rest = since.length > 0 ? Buffer.concat([Buffer.from(snapshotLine(mark)), since]) : Buffer.alloc(0)
    await writeFileDurable(this.journalPath, rest)
    const [snapshot, emptied] = await Promise.all([stat(this.path), stat(this.journalPath)])
    this.seen = {
      snapshot: versionOf(snapshot),
      snapshotSize: snapshot.size,
      fingerprint: mark,
      own: true,
      journal: versionOf(emptied),
      journalInode: emptied.ino,
      applied: rest.length,
      stale: false,
    }
  }

  /** Under the lock: tasks.json replaced durably by the document. */
  private async writeSnapshot(): Promise<void> {
    const text = snapshotText(this.doc)
    await writeFileDurable(this.path, text)
    const snapshot = await stat(this.path)
    this.seen = { ...(this.seen as Seen), snapshot: versionOf(snapshot), snapshotSize: snapshot.size, fingerprint: fingerprint(text), own: true }
  }

  /**
   * Brings the document up to what is on disk: only the journal's new lines when
   * tasks.json is the one read before, else both files. Without the lock, a compaction
   * by another process may land between the two reads; tasks.json is checked again
   * after, and both are read again if it changed. Under the lock, a torn last line
   * (never acknowledged) or a stale journal is cut away before anything is appended.
   */
  private async catchUp(locked: boolean): Promise<void> {
    for (;;) {
      const snapshot = await statIfExists(this.path)
      const journal = await openIfExists(this.journalPath, locked ? 'r+' : 'r')
      try {
        const info = await journal?.stat()
        const seen = this.seen
        const same = seen !== undefined && !seen.stale && seen.snapshot === versionOf(snapshot)
        if (same && journal && info && info.ino === seen.journalInode && info.size >= seen.applied) {
          await this.readJournalTail(journal, info, seen)
        } else if (same && !journal && seen.applied === 0) {
          this.seen = { ...seen, journal: 'absent', journalInode: undefined }
        } else if (!(await this.readBoth(journal, info, locked))) {
          continue
        }
        if (locked && journal && info && info.size > (this.seen as Seen).applied) {
          await journal.truncate((this.seen as Seen).applied)
          this.seen = { ...(this.seen as Seen), journal: versionOf(await journal.stat()), stale: false }
        }
        return
      } finally {
        await journal?.close()
      }
    }
  }

  private async readJournalTail(journal: FileHandle, info: Stats, seen: Seen): Promise<void> {
    const text = await readFrom(journal, seen.applied, info.size)
    const { entries, length } = parseJournal(text, seen.applied, (problem) => corrupt(this.journalPath, problem))
    this.doc = this.replay(this.doc, entries)
    this.seen = { ...seen, journal: versionOf(info), applied: seen.applied + length }
  }

  /** Reads tasks.json and the whole journal; false when tasks.json changed meanwhile (read again). */
  private async readBoth(journal: FileHandle | undefined, info: Stats | undefined, locked: boolean): Promise<boolean> {
    const snapshot = await openIfExists(this.path, 'r')
    let text: string | undefined
    let snapshotInfo: Stats | undefined
    try {
      // fstat and read on one descriptor describe the same file, even if it is replaced meanwhile.
      snapshotInfo = await snapshot?.stat()
      text = await snapshot?.readFile('utf8')
    } finally {
      await snapshot?.close()
    }
    const { doc, own } = text === undefined ? { doc: structuredClone(EMPTY_DOCUMENT), own: false } : decodeSnapshot(text, this.path)
    const journalText = journal && info ? parseJournal(await readFrom(journal, 0, info.size), 0, (problem) => corrupt(this.journalPath, problem)) : undefined
    if (!locked && versionOf(await statIfExists(this.path)) !== versionOf(snapshotInfo)) return false
    const mark = fingerprint(text)
    const stale = journalText !== undefined && journalText.snapshots.length > 0 && !journalText.snapshots.includes(mark)
    this.doc = stale || !journalText ? doc : this.replay(doc, journalText.entries)
    this.seen = {
      snapshot: versionOf(snapshotInfo),
      snapshotSize: snapshotInfo?.size ?? 0,
      fingerprint: mark,
      own,
      journal: versionOf(info),
      journalInode: info?.ino,
      // A stale journal is cut away whole under the lock.
      applied: stale ? 0 : (journalText?.length ?? 0),
      stale,
    }
    return true
  }

  /** `doc` with the entries newer than it applied; older ones were compacted into it already. */
  private replay(doc: TaskDocument, entries: JournalEntry[]): TaskDocument {
    let current = doc
    for (const entry of entries) {
      if (entry.generation > current.store_generation) current = applyEntry(current, entry, (raw) => recordOf(raw, this.journalPath))
    }
    return current
  }
}
