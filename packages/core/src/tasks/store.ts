import { open, stat } from 'node:fs/promises'
import Type from 'typebox'
import Compile from 'typebox/compile'
import { TaskInput } from '@svc/protocol'
import { CorruptFile } from '../errors.js'
import { writeFileDurable } from '../infra/durable.js'
import { withFileLock } from '../infra/filelock.js'
import { EMPTY_DOCUMENT, ON_COMPLETE, STORED_FIELDS, TASK_DEFAULTS, type TaskDocument, type TaskRecord } from './record.js'

const RunShape = Type.Object({
  session_id: Type.String(),
  title: Type.String(),
  repo_id: Type.String(),
  task_id: Type.String(),
  started_at: Type.String(),
})

/**
 * Open objects: fields a newer daemon added survive a read (and are dropped on the next
 * write). Compiled once: every write re-reads the whole file.
 */
const FileShape = Compile(
  Type.Object({
    store_generation: Type.Integer({ minimum: 0 }),
    tasks: Type.Array(Type.Object({ ...TaskInput.properties, id: Type.String() })),
    runs: Type.Optional(Type.Array(RunShape)),
  }),
)

/** A read of tasks.json and the identity of the file version it came from. */
export interface Loaded {
  doc: TaskDocument
  /** Inode, size and mtime: every write renames a new file into place, so a change is always seen. */
  version: string
}

function corrupt(path: string, problem: string): CorruptFile {
  return new CorruptFile(`${path}: ${problem}; the daemon keeps the file as it is and refuses task operations until you fix it or move it aside`)
}

/** A stored task with what it left out filled in; its field types are already checked. */
function recordOf(raw: Record<string, unknown>, path: string): TaskRecord {
  const record = structuredClone(TASK_DEFAULTS) as unknown as Record<string, unknown>
  for (const field of STORED_FIELDS) if (raw[field] !== undefined) record[field] = raw[field]
  if (record.on_complete === 'keep') record.on_complete = ''
  if (!ON_COMPLETE.some((option) => option.value === record.on_complete)) {
    throw corrupt(path, `task ${String(record.id)} has on_complete ${JSON.stringify(record.on_complete)}`)
  }
  return record as unknown as TaskRecord
}

/** Parses tasks.json; anything unusable is a CorruptFile naming the file and the problem. */
export function decodeTasks(text: string, path: string): TaskDocument {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw corrupt(path, `not valid JSON (${(error as Error).message})`)
  }
  const [problem] = FileShape.Check(parsed) ? [] : FileShape.Errors(parsed)
  if (problem) {
    const at = problem.instancePath.split('/').filter(Boolean).join('.')
    throw corrupt(path, `${at || 'the document'} ${problem.message}`)
  }
  const file = parsed as { store_generation: number; tasks: Record<string, unknown>[]; runs?: TaskDocument['runs'] }
  const tasks = file.tasks.map((raw) => recordOf(raw, path))
  const seen = new Set<string>()
  for (const task of tasks) {
    if (seen.has(task.id)) throw corrupt(path, `task id "${task.id}" appears twice`)
    seen.add(task.id)
  }
  return { store_generation: file.store_generation, tasks, runs: file.runs ?? [] }
}

function versionOf(info: { ino: number; size: number; mtimeMs: number }): string {
  return `${info.ino}:${info.size}:${info.mtimeMs}`
}

/**
 * tasks.json, shared by every process that writes it (this daemon, a second one, a
 * script): each write takes tasks.json.lock, re-reads the file, changes what it read,
 * and replaces the file durably, so no writer loses another's update.
 */
export class TaskStore {
  constructor(readonly path: string) {}

  async load(): Promise<Loaded> {
    let file
    try {
      file = await open(this.path, 'r')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { doc: structuredClone(EMPTY_DOCUMENT), version: 'absent' }
      throw error
    }
    try {
      // fstat and read on one descriptor describe the same file, even if it is replaced meanwhile.
      const version = versionOf(await file.stat())
      return { doc: decodeTasks(await file.readFile('utf8'), this.path), version }
    } finally {
      await file.close()
    }
  }

  /** The version on disk now, to tell whether a cached read is stale. */
  async currentVersion(): Promise<string> {
    try {
      return versionOf(await stat(this.path))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent'
      throw error
    }
  }

  /**
   * Runs `change` on a fresh read under the file lock. When it returns `next`, that
   * document is written with store_generation bumped; a throw writes nothing.
   */
  transact<T>(change: (doc: TaskDocument) => { result: T; next?: TaskDocument }): Promise<Loaded & { result: T }> {
    return withFileLock(`${this.path}.lock`, async () => {
      const loaded = await this.load()
      const { result, next } = change(loaded.doc)
      if (next === undefined) return { ...loaded, result }
      const written = { ...next, store_generation: loaded.doc.store_generation + 1 }
      await writeFileDurable(this.path, `${JSON.stringify(written, null, 2)}\n`)
      return { doc: written, version: await this.currentVersion(), result }
    })
  }
}
