import { randomUUID } from 'node:crypto'
import Type from 'typebox'
import Compile from 'typebox/compile'
import { CorruptFile } from '../errors.js'
import { ON_COMPLETE, STORED_FIELDS, TASK_DEFAULTS, type TaskDocument, type TaskRecord } from './record.js'
import { problemOf, StoredRun, StoredTask } from './shapes.js'

// tasks.json as the task store reads and writes it; the journal's lines are in journal.ts.

const FileShape = Compile(
  Type.Object({
    store_generation: Type.Integer({ minimum: 0 }),
    tasks: Type.Array(StoredTask),
    runs: Type.Optional(Type.Array(StoredRun)),
    snapshot_id: Type.Optional(Type.String()),
  }),
)

export function corrupt(path: string, problem: string): CorruptFile {
  return new CorruptFile(`${path}: ${problem}; the daemon keeps the file as it is and refuses task operations until you fix it or move it aside`)
}

/** A stored task with what it left out filled in; its field types are already checked. */
export function recordOf(raw: Record<string, unknown>, path: string): TaskRecord {
  const record = structuredClone(TASK_DEFAULTS) as unknown as Record<string, unknown>
  for (const field of STORED_FIELDS) if (raw[field] !== undefined) record[field] = raw[field]
  if (record.on_complete === 'keep') record.on_complete = ''
  if (!ON_COMPLETE.some((option) => option.value === record.on_complete)) {
    throw corrupt(path, `task ${String(record.id)} has on_complete ${JSON.stringify(record.on_complete)}`)
  }
  return record as unknown as TaskRecord
}

/** Parses tasks.json; anything unusable is a CorruptFile naming the file and the problem. */
export function decodeSnapshot(text: string, path: string): { doc: TaskDocument; own: boolean } {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw corrupt(path, `not valid JSON (${(error as Error).message})`)
  }
  const problem = problemOf(FileShape, parsed, 'the document')
  if (problem) throw corrupt(path, problem)
  const file = parsed as { store_generation: number; tasks: Record<string, unknown>[]; runs?: TaskDocument['runs']; snapshot_id?: string }
  const tasks = file.tasks.map((raw) => recordOf(raw, path))
  const seen = new Set<string>()
  for (const task of tasks) {
    if (seen.has(task.id)) throw corrupt(path, `task id "${task.id}" appears twice`)
    seen.add(task.id)
  }
  return { doc: { store_generation: file.store_generation, tasks, runs: file.runs ?? [] }, own: file.snapshot_id !== undefined }
}

/**
 * tasks.json as the store writes it: with an id of its own, so that a journal names
 * this very file and not one written by hand with the same tasks.
 */
export function snapshotText(doc: TaskDocument): string {
  const { store_generation, tasks, runs } = doc
  return `${JSON.stringify({ store_generation, snapshot_id: randomUUID(), tasks, runs }, null, 2)}\n`
}
