import { appendFile, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { CorruptFile } from '../errors.js'
import { writeFileDurable } from '../infra/durable.js'
import { TASK_DEFAULTS, type TaskDocument, type TaskRecord } from './record.js'
import { fingerprint, snapshotLine } from './journal.js'
import { TaskStore, type Committed } from './store.js'

let dir = ''
let path = ''
beforeEach(async () => {
  dir = await mkdtemp('/tmp/svc-')
  path = join(dir, 'tasks.json')
})
afterEach(async () => {
  vi.restoreAllMocks()
  await rm(dir, { recursive: true, force: true })
})

const task = (id: string, name = id): TaskRecord => ({ ...structuredClone(TASK_DEFAULTS), id, name })
const adding = (id: string) => (doc: TaskDocument) => ({ result: id, next: { ...doc, tasks: [...doc.tasks, task(id)] } })
const renaming = (id: string, name: string) => (doc: TaskDocument) => ({
  result: name,
  next: { ...doc, tasks: doc.tasks.map((stored) => (stored.id === id ? { ...stored, name } : stored)) },
})
const removing = (id: string) => (doc: TaskDocument) => ({ result: id, next: { ...doc, tasks: doc.tasks.filter((stored) => stored.id !== id) } })

/** The store as a fresh reader (another process) sees it. */
const reread = async () => (await new TaskStore(path).load()).doc
const journalLines = async () => (await readFile(join(dir, 'tasks.journal'), 'utf8')).split('\n').slice(0, -1)

/** Counts the fdatasync calls of every file handle: the journal's are the store's only ones. */
async function countDatasyncs(): Promise<{ count: number }> {
  const probe = await open(join(dir, 'probe'), 'w')
  const prototype = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> }
  await probe.close()
  const counter = { count: 0 }
  const datasync = prototype.datasync
  vi.spyOn(prototype, 'datasync').mockImplementation(function (this: unknown) {
    counter.count++
    return datasync.call(this)
  })
  return counter
}

it('commits concurrent changes in one append and one fdatasync, each answered once it is durable', async () => {
  const store = new TaskStore(path)
  await store.transact(adding('first'))
  const syncs = await countDatasyncs()
  const answered: number[] = []
  const ids = Array.from({ length: 20 }, (_, n) => `t${n}`)
  await Promise.all(ids.map((id) => store.transact(adding(id)).then(() => answered.push(syncs.count))))
  expect(syncs.count).toBe(1)
  expect(answered).toEqual(ids.map(() => 1))
  // A header and one line per change, generations in commit order.
  const lines = await journalLines()
  expect(lines).toHaveLength(22)
  expect(lines.slice(1).map((line) => (JSON.parse(line) as { generation: number }).generation)).toEqual(Array.from({ length: 21 }, (_, n) => n + 1))
  expect((await reread()).tasks.map((stored) => stored.id)).toEqual(['first', ...ids])
})

it('fails a throwing change alone; the rest of its batch commits, and a line holds only what changed', async () => {
  const store = new TaskStore(path)
  await store.transact(adding('a'))
  await store.transact(adding('b'))
  const results = await Promise.allSettled([
    store.transact(renaming('a', 'renamed')),
    store.transact(() => {
      throw new Error('refused')
    }),
    store.transact(removing('b')),
  ])
  expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  const [renamed, , removed] = results as [PromiseFulfilledResult<Committed<string>>, unknown, PromiseFulfilledResult<Committed<string>>]
  // Each sees the document right after its own change, and the store after the batch.
  expect(renamed.value.after.tasks.map((stored) => stored.id)).toEqual(['a', 'b'])
  expect(removed.value.doc.tasks).toEqual([expect.objectContaining({ id: 'a', name: 'renamed' })])
  const entries = (await journalLines()).slice(-2).map((line) => JSON.parse(line) as Record<string, unknown>)
  expect(entries).toEqual([
    { generation: 3, put: [expect.objectContaining({ id: 'a', name: 'renamed' })] },
    { generation: 4, delete: ['b'] },
  ])
  expect(await reread()).toEqual(removed.value.doc)
})

it('keeps the tasks a change did not touch as the same objects', async () => {
  const store = new TaskStore(path)
  await store.transact(adding('a'))
  const { doc: before } = await store.transact(adding('b'))
  const { doc: after } = await store.transact(renaming('b', 'b2'))
  expect(after.tasks[0]).toBe(before.tasks[0])
  expect(after.tasks[1]).not.toBe(before.tasks[1])
})

it('ignores a torn last line, which was never acknowledged, and cuts it away before the next append', async () => {
  const store = new TaskStore(path)
  await store.transact(adding('kept'))
  await appendFile(join(dir, 'tasks.journal'), '{"generation":2,"put":[{"id":"to')
  expect((await reread()).tasks.map((stored) => stored.id)).toEqual(['kept'])
  await new TaskStore(path).transact(adding('next'))
  expect(await journalLines()).toHaveLength(3)
  expect(await reread()).toMatchObject({ store_generation: 2, tasks: [{ id: 'kept' }, { id: 'next' }] })
})

it('refuses a complete line that does not parse, naming the journal, and leaves it as it is', async () => {
  const store = new TaskStore(path)
  await store.transact(adding('kept'))
  await appendFile(join(dir, 'tasks.journal'), '{"generation":2,"put":[{"id":7}]}\n')
  const journal = await readFile(join(dir, 'tasks.journal'), 'utf8')
  await expect(reread()).rejects.toThrow(CorruptFile)
  await expect(new TaskStore(path).transact(adding('more'))).rejects.toThrow(`${join(dir, 'tasks.journal')}: the change after generation 1: put.0.id`)
  expect(await readFile(join(dir, 'tasks.journal'), 'utf8')).toBe(journal)
})

it('reads the same whatever step of a compaction a crash interrupted', async () => {
  const store = new TaskStore(path)
  for (const id of ['a', 'b']) await store.transact(adding(id))
  await store.transact(renaming('a', 'a2'))
  const { doc } = await store.load()
  // A compaction's steps: the journal names the new tasks.json, which is then renamed into place.
  const compacted = `${JSON.stringify({ ...doc, snapshot_id: 'crash' }, null, 2)}\n`
  await appendFile(join(dir, 'tasks.journal'), snapshotLine(fingerprint(compacted)))
  expect(await reread()).toEqual(doc)
  await writeFileDurable(path, compacted)
  // The journal's older lines are in the new file already: skipped, not applied again.
  expect(await reread()).toEqual(doc)
  await new TaskStore(path).transact(adding('c'))
  await new TaskStore(path).compact()
  expect(await readFile(join(dir, 'tasks.journal'), 'utf8')).toBe('')
  expect(await reread()).toMatchObject({ store_generation: 4, tasks: [{ id: 'a', name: 'a2' }, { id: 'b' }, { id: 'c' }] })
})

it('skips a journal that continues another tasks.json', async () => {
  const store = new TaskStore(path)
  for (const id of ['a', 'b', 'c']) await store.transact(adding(id))
  const { doc } = await store.load()
  await writeFileDurable(path, `${JSON.stringify({ ...doc, tasks: [task('z')], snapshot_id: 'other' })}\n`)
  expect(await reread()).toMatchObject({ store_generation: 3, tasks: [{ id: 'z' }] })
  await new TaskStore(path).transact(adding('d'))
  // The stale journal is gone; the new one continues the new tasks.json.
  expect(await journalLines()).toHaveLength(2)
  expect(await reread()).toMatchObject({ store_generation: 4, tasks: [{ id: 'z' }, { id: 'd' }] })
})

it('lets a tasks.json written by hand replace the store, journal and all, even written twice the same', async () => {
  const byHand = JSON.stringify({ store_generation: 0, tasks: [task('hand')], runs: [] })
  await writeFile(path, byHand)
  const store = new TaskStore(path)
  for (const id of ['a', 'b']) await store.transact(adding(id))
  await writeFile(path, byHand)
  expect((await store.load()).doc.tasks.map((stored) => stored.id)).toEqual(['hand'])
  await store.transact(adding('after'))
  expect((await reread()).tasks.map((stored) => stored.id)).toEqual(['hand', 'after'])
  // Compacting owns a file written by hand: rewritten with an id, the journal empty.
  await writeFile(path, byHand)
  await store.compact()
  expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ snapshot_id: expect.any(String), tasks: [{ id: 'hand' }] })
  expect(await readFile(join(dir, 'tasks.journal'), 'utf8')).toBe('')
})

it('reads again for a load that joined a read which caught tasks.json half-written; the read begun first reports it', async () => {
  const whole = JSON.stringify({ store_generation: 0, tasks: [task('hand')], runs: [] })
  await writeFile(path, whole.slice(0, 20))
  const store = new TaskStore(path)
  // The writer finishes right after the first read: as an editor's write lands after its truncate.
  const catchUp = (store as unknown as { catchUp: (locked: boolean) => Promise<void> }).catchUp.bind(store)
  let reads = 0
  vi.spyOn(store as unknown as { catchUp: (locked: boolean) => Promise<void> }, 'catchUp').mockImplementation(async (locked) => {
    try {
      return await catchUp(locked)
    } finally {
      if (reads++ === 0) writeFileSync(path, whole)
    }
  })
  const first = store.load()
  const joined = store.load()
  await expect(first).rejects.toBeInstanceOf(CorruptFile)
  expect((await joined).doc.tasks.map((stored) => stored.id)).toEqual(['hand'])
  expect(reads).toBe(2)
})

it('sees what another writer appended, reading only the new lines', async () => {
  const mine = new TaskStore(path)
  const other = new TaskStore(path)
  await mine.transact(adding('mine'))
  const { doc: before } = await mine.load()
  await other.transact(adding('theirs'))
  const { doc } = await mine.load()
  expect(doc.tasks.map((stored) => stored.id)).toEqual(['mine', 'theirs'])
  expect(doc.tasks[0]).toBe(before.tasks[0])
  await mine.transact(renaming('theirs', 'changed'))
  expect((await other.load()).doc.tasks[1]).toMatchObject({ id: 'theirs', name: 'changed' })
})

it('compacts the journal into tasks.json once it outgrows it, and on demand', async () => {
  const store = new TaskStore(path)
  const prompt = 'x'.repeat(4096)
  for (let n = 0; n < 80; n++) {
    await store.transact((doc) => ({ result: n, next: { ...doc, tasks: [...doc.tasks.filter((stored) => stored.id !== 'big'), { ...task('big'), prompt: `${n}${prompt}` }] } }))
  }
  await store.idle()
  // 80 lines of 4 KiB passed 256 KiB after some 60: compacted then, the last lines since.
  const snapshot = JSON.parse(await readFile(path, 'utf8')) as TaskDocument
  expect(snapshot.store_generation).toBeGreaterThan(55)
  expect((await stat(join(dir, 'tasks.journal'))).size).toBeLessThan((80 - snapshot.store_generation + 1) * 4300)
  const { doc } = await store.load()
  expect(await reread()).toEqual(doc)
  await store.compact()
  expect((await stat(join(dir, 'tasks.journal'))).size).toBe(0)
  expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ ...doc, snapshot_id: expect.any(String), tasks: [expect.objectContaining({ id: 'big', prompt: `79${prompt}` })] })
  expect(await reread()).toEqual(doc)
})
