import { createHash } from 'node:crypto'
import Type from 'typebox'
import Compile from 'typebox/compile'
import type { RunRecord, TaskDocument, TaskRecord } from './record.js'
import { problemOf, StoredRun, StoredTask } from './shapes.js'

/**
 * One mutation of the store, as a line of tasks.journal: the tasks it put (a known id
 * replaced in place, a new one appended), the ids it deleted, and the runs list when it
 * changed. Tasks are checked like tasks.json's by the store that reads the line.
 */
export interface JournalEntry {
  generation: number
  put?: Array<Record<string, unknown>>
  delete?: string[]
  runs?: RunRecord[]
}

/**
 * The journal's first line names the tasks.json it continues, by content, so a file
 * replaced by hand outranks it. A compaction appends another such line before it puts
 * its tasks.json in place: the journal then continues either file.
 */
interface SnapshotLine {
  snapshot: string
}

const Snapshot = Compile(Type.Object({ snapshot: Type.String() }))

const Entry = Compile(
  Type.Object({
    generation: Type.Integer({ minimum: 1 }),
    put: Type.Optional(Type.Array(StoredTask)),
    delete: Type.Optional(Type.Array(Type.String())),
    runs: Type.Optional(Type.Array(StoredRun)),
  }),
)

/** What identifies a tasks.json's content; the same for an absent file and an empty one. */
export function fingerprint(snapshot: string | undefined): string {
  return createHash('sha256')
    .update(snapshot ?? '')
    .digest('base64url')
}

export function snapshotLine(snapshot: string): string {
  return `${JSON.stringify({ snapshot } satisfies SnapshotLine)}\n`
}

export function entryLine(entry: JournalEntry): string {
  return `${JSON.stringify(entry)}\n`
}

/**
 * The entry that turns `before` into `after`: only the task objects that are new or
 * replaced, and the runs if replaced. Tasks keep their order, so both lists are walked
 * side by side; an index of ids is built only from the first task removed on.
 */
export function entryBetween(before: TaskDocument, after: TaskDocument, generation: number): JournalEntry {
  const entry: JournalEntry = { generation }
  const put: TaskRecord[] = []
  let index = 0
  while (index < after.tasks.length && index < before.tasks.length && after.tasks[index]?.id === before.tasks[index]?.id) {
    if (after.tasks[index] !== before.tasks[index]) put.push(after.tasks[index] as TaskRecord)
    index++
  }
  const previous = new Map(before.tasks.slice(index).map((task) => [task.id, task]))
  for (const task of after.tasks.slice(index)) {
    if (previous.get(task.id) !== task) put.push(task)
    previous.delete(task.id)
  }
  const gone = [...previous.keys()]
  if (put.length > 0) entry.put = put as unknown as Array<Record<string, unknown>>
  if (gone.length > 0) entry.delete = gone
  if (after.runs !== before.runs) entry.runs = after.runs
  return entry
}

/**
 * `doc` with `entry` applied, its tasks made by `recordOf`. Tasks the entry does not
 * name stay the very same objects, so what is cached per task stays valid.
 */
export function applyEntry(doc: TaskDocument, entry: JournalEntry, recordOf: (raw: Record<string, unknown>) => TaskRecord): TaskDocument {
  const gone = new Set(entry.delete)
  const tasks = gone.size > 0 ? doc.tasks.filter((task) => !gone.has(task.id)) : [...doc.tasks]
  const puts = (entry.put ?? []).map(recordOf)
  // Most entries put one task: a scan finds it faster than an index of every id is built.
  const at = puts.length > 4 ? new Map(tasks.map((task, index) => [task.id, index])) : undefined
  for (const task of puts) {
    const index = at ? (at.get(task.id) ?? -1) : tasks.findIndex((stored) => stored.id === task.id)
    if (index === -1) {
      at?.set(task.id, tasks.length)
      tasks.push(task)
    } else {
      tasks[index] = task
    }
  }
  return { store_generation: entry.generation, tasks, runs: entry.runs ?? doc.runs }
}

/** The complete lines of a journal: the tasks.json files it continues, its entries, and the bytes they span. */
export interface JournalText {
  snapshots: string[]
  entries: JournalEntry[]
  length: number
}

/**
 * Parses the complete (newline-terminated) lines of `text`, read from byte `offset` of
 * the journal (0: the header comes first). A torn last line is not counted: its write
 * was never acknowledged. A complete line that does not parse is reported by `problem`.
 */
export function parseJournal(text: Buffer, offset: number, problem: (what: string) => Error): JournalText {
  const end = text.lastIndexOf(0x0a) + 1
  const lines = text.subarray(0, end).toString('utf8').split('\n').slice(0, -1)
  const snapshots: string[] = []
  const entries: JournalEntry[] = []
  for (const [index, line] of lines.entries()) {
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch (error) {
      throw problem(`a line is not valid JSON (${(error as Error).message})`)
    }
    if (Snapshot.Check(parsed)) {
      snapshots.push(parsed.snapshot)
    } else if (offset === 0 && index === 0) {
      throw problem('the first line does not name the tasks.json it continues')
    } else {
      const wrong = problemOf(Entry, parsed, 'the line')
      if (wrong) throw problem(`the change after ${entries.at(-1) ? `generation ${entries.at(-1)?.generation}` : 'the header'}: ${wrong}`)
      entries.push(parsed as JournalEntry)
    }
  }
  return { snapshots, entries, length: end }
}
