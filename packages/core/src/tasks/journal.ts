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

/** The journal's first line: the tasks.json it continues, by content, so a file replaced by hand outranks it. */
interface JournalHeader {
  snapshot: string
}

const Header = Compile(Type.Object({ snapshot: Type.String() }))

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

export function headerLine(snapshot: string): string {
  return `${JSON.stringify({ snapshot } satisfies JournalHeader)}\n`
}

export function entryLine(entry: JournalEntry): string {
  return `${JSON.stringify(entry)}\n`
}

/** The entry that turns `before` into `after`: only the task objects that are new or replaced, and the runs if replaced. */
export function entryBetween(before: TaskDocument, after: TaskDocument, generation: number): JournalEntry {
  const entry: JournalEntry = { generation }
  const previous = new Map(before.tasks.map((task) => [task.id, task]))
  const put = after.tasks.filter((task) => previous.get(task.id) !== task)
  const kept = new Set(after.tasks.map((task) => task.id))
  const gone = before.tasks.filter((task) => !kept.has(task.id)).map((task) => task.id)
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
  const at = new Map(tasks.map((task, index) => [task.id, index]))
  for (const raw of entry.put ?? []) {
    const task = recordOf(raw)
    const index = at.get(task.id)
    if (index === undefined) {
      at.set(task.id, tasks.length)
      tasks.push(task)
    } else {
      tasks[index] = task
    }
  }
  return { store_generation: entry.generation, tasks, runs: entry.runs ?? doc.runs }
}

/** A journal split into its header and the entries of its complete lines; `length` is the bytes they span. */
export interface JournalText {
  header: string | undefined
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
  let header: string | undefined
  const entries: JournalEntry[] = []
  for (const [index, line] of lines.entries()) {
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch (error) {
      throw problem(`a line is not valid JSON (${(error as Error).message})`)
    }
    if (offset === 0 && index === 0) {
      if (!Header.Check(parsed)) throw problem('the first line does not name the tasks.json it continues')
      header = parsed.snapshot
    } else {
      const wrong = problemOf(Entry, parsed, 'the line')
      if (wrong) throw problem(`the change after ${entries.at(-1) ? `generation ${entries.at(-1)?.generation}` : 'the header'}: ${wrong}`)
      entries.push(parsed as JournalEntry)
    }
  }
  return { header, entries, length: end }
}
