import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pino from 'pino'
import type { Static } from 'typebox'
import type { ListTasksResponse } from '@svc/protocol'
import { afterEach, expect, it, vi } from 'vitest'
import { shiftedClock, systemClock, type Clock } from '../infra/clock.js'
import type { Config } from '../config/config.js'
import { MutationCommitted } from '../errors.js'
import { EventBus } from '../events/bus.js'
import { taskFeed } from '../events/task-feed.js'
import type { SessionPort } from '../tasks-port.js'
import { NO_SESSIONS } from './runs.js'
import { TaskStore } from './store.js'
import { Tasks } from './tasks.js'

type ListTasksResponseT = Static<typeof ListTasksResponse>

let dir = ''
/** The engines a test opened, closed after it. */
const opened: Tasks[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((tasks) => tasks.close()))
  await rm(dir, { recursive: true, force: true })
})

/** A task engine on a fresh git directory, or on the current one (a restart). */
async function engine(reopen = false, log = pino({ level: 'silent' }), clock: Clock = systemClock, events = new EventBus(log)): Promise<Tasks> {
  if (!reopen) {
    dir = await mkdtemp('/tmp/svc-')
    execFileSync('git', ['init', '-q', dir])
  }
  const config = { get: () => 1000 } as unknown as Config
  const tasks = new Tasks({ path: join(dir, 'tasks.json'), config, log, clock, env: process.env, feed: taskFeed(events) })
  opened.push(tasks)
  return tasks
}

/** Sessions that do nothing, but for what a test overrides. */
function sessions(overrides: Partial<SessionPort> = {}): SessionPort {
  return {
    spawn: async ({ title_base }) => ({ id: `id-${title_base}`, title: title_base }),
    deliver: async () => 'sent',
    archive: async () => {},
    kill: async () => {},
    settled: () => false,
    targetState: () => 'live',
    onSettled: () => {},
    ...overrides,
  }
}

/** What is stored, read as another process would. */
const storedRuns = async () => (await new TaskStore(join(dir, 'tasks.json')).load()).doc.runs
/** Both files of the store, byte for byte. */
const storeFiles = () => Promise.all(['tasks.json', 'tasks.journal'].map((name) => readFile(join(dir, name), 'utf8').catch(() => undefined)))
const cron = (id: string, more: Record<string, unknown> = {}) => ({ id, cron_expr: '0 0 1 1 *', prompt: 'p', project_path: dir, ...more })

it('refuses runs and target checks loudly until sessions are attached, and records the failed run', async () => {
  const tasks = await engine()
  await tasks.restore()
  await tasks.add({ task: { id: 'lonely', cron_expr: '0 0 1 1 *', prompt: 'p', project_path: dir } })
  await expect(tasks.trigger({ id: 'lonely' })).rejects.toThrow(NO_SESSIONS)
  const [task] = (JSON.parse(await tasks.listJson()) as ListTasksResponseT).tasks
  expect(task?.last_run_status).toBe(`failed: ${NO_SESSIONS}`)
  await expect(tasks.add({ task: { cron_expr: '0 0 1 1 *', prompt: 'p', project_path: dir, target_session: 's' } })).rejects.toThrow(
    NO_SESSIONS,
  )
  expect((JSON.parse(await tasks.listJson()) as ListTasksResponseT).tasks).toHaveLength(1)
})

it('announces a task whose health moves with the clock alone: a missed occurrence turning overdue', async () => {
  const log = pino({ level: 'silent' })
  const first = await engine(false, log, shiftedClock(new Date('2026-01-01T00:00:30Z')))
  await first.restore()
  await first.add({ task: cron('minutely', { cron_expr: '* * * * *' }) })
  await first.close()

  // Back 300 ms after the 00:01 occurrence it slept through: missed, overdue one poll interval (1 s) later.
  const events = new EventBus(log)
  const updates: Array<{ overdue: boolean; missed_occurrences: number }> = []
  events.subscribe((event) => event.type === 'task.updated' && updates.push(event.data))
  const tasks = await engine(true, log, shiftedClock(new Date('2026-01-01T00:01:00.300Z')), events)
  await tasks.restore()
  events.start()
  const [before] = (JSON.parse(await tasks.listJson()) as ListTasksResponseT).tasks
  expect(before).toMatchObject({ missed_occurrences: 1, overdue: false })
  await vi.waitFor(() => expect(updates).toEqual([expect.objectContaining({ missed_occurrences: 1, overdue: true })]), { timeout: 3_000 })
  // Nothing more moves before the next occurrence.
  await new Promise((resolve) => setTimeout(resolve, 500))
  expect(updates).toHaveLength(1)
})

it('announces a write as the tasks it changed, placed as they are now, not every task', async () => {
  const log = pino({ level: 'silent' })
  const events = new EventBus(log)
  const sent: Array<{ type: string; id: string; store_generation: number }> = []
  events.subscribe((event) => sent.push({ type: event.type, ...(event.data as { id: string; store_generation: number }) }))
  const tasks = await engine(false, log, systemClock, events)
  await tasks.restore()
  events.start()
  for (const id of ['a', 'b', 'c']) await tasks.add({ task: cron(id) })
  await vi.waitFor(() => expect(sent).toHaveLength(3))
  await tasks.update({ id: 'b', update: { prompt: 'changed' } })
  // The removal shifts the ordinals after it: what c is, apart from its place, did not change.
  await tasks.remove({ id: 'a' })
  await vi.waitFor(() => expect(sent).toHaveLength(5))
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(sent.map(({ type, id, store_generation }) => `${type} ${id} ${store_generation}`)).toEqual([
    'task.created a 1',
    'task.created b 2',
    'task.created c 3',
    'task.updated b 4',
    'task.removed a undefined',
  ])
})

it('announces next_run_at moved by a fire whose result is not recorded yet, once the turn interval passed', async () => {
  const log = pino({ level: 'silent' })
  const events = new EventBus(log)
  const updates: Array<{ next_run_at?: string; last_run_at?: string }> = []
  events.subscribe((event) => event.type === 'task.updated' && updates.push(event.data))
  dir = await mkdtemp('/tmp/svc-')
  execFileSync('git', ['init', '-q', dir])
  const tasks = new Tasks({
    path: join(dir, 'tasks.json'),
    config: { get: () => 1000 } as unknown as Config,
    log,
    clock: shiftedClock(new Date('2026-01-01T00:00:59.500Z')),
    env: { SVC_TASK_TURN_MS: '500' },
    feed: taskFeed(events),
  })
  opened.push(tasks)
  let started!: () => void
  const starting = new Promise<void>((resolve) => (started = resolve))
  // The 00:01 run takes its time to start its session; until it has, nothing is recorded.
  tasks.attach(sessions({ spawn: async ({ title_base }) => (await starting, { id: `id-${title_base}`, title: title_base }) }))
  await tasks.restore()
  events.start()
  await tasks.add({ task: cron('minutely', { cron_expr: '* * * * *' }) })
  expect(updates).toEqual([])
  await vi.waitFor(() => expect(updates).toHaveLength(1), { timeout: 3_000 })
  expect(updates[0]).toMatchObject({ next_run_at: '2026-01-01T00:02:00.000Z', missed_occurrences: 0, overdue: false })
  expect(updates[0]?.last_run_at).toBeUndefined()
  started()
  await vi.waitFor(() => expect(updates).toHaveLength(2), { timeout: 3_000 })
  expect(updates[1]).toMatchObject({ next_run_at: '2026-01-01T00:02:00.000Z', last_run_at: expect.stringMatching(/^2026-01-01T00:01:00/) })
})

it('reports a run that happened but could not be recorded as committed, never as a plain failure', async () => {
  const tasks = await engine()
  // Sessions stand in here only to break tasks.json while a run starts.
  const port = {
    spawn: async () => {
      await writeFile(join(dir, 'tasks.json'), '{ broken')
      return { id: 'session-1', title: 'report' }
    },
    onSettled: () => {},
  } as unknown as SessionPort
  tasks.attach(port)
  await tasks.restore()
  await tasks.add({ task: { id: 'report', cron_expr: '0 0 1 1 *', prompt: 'p', project_path: dir } })
  const outcome = tasks.trigger({ id: 'report' })
  await expect(outcome).rejects.toBeInstanceOf(MutationCommitted)
  await expect(outcome).rejects.toThrow('task report ran (spawned report), but recording the run failed')
})

it('logs a run result it could not record, with the task and the result lost', async () => {
  const lines: Array<Record<string, unknown>> = []
  const tasks = await engine(false, pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) }))
  tasks.attach({
    spawn: async () => {
      await writeFile(join(dir, 'tasks.json'), '{ broken')
      throw new Error('no tmux here')
    },
    onSettled: () => {},
  } as unknown as SessionPort)
  await tasks.restore()
  await tasks.add({ task: { id: 'report', cron_expr: '0 0 1 1 *', prompt: 'p', project_path: dir } })
  await expect(tasks.trigger({ id: 'report' })).rejects.toThrow('no tmux here')
  expect(lines).toContainEqual(
    expect.objectContaining({
      msg: 'could not record a task outcome',
      task: 'report',
      outcome: expect.objectContaining({ last_run_status: 'failed: no tmux here' }),
    }),
  )
})

it('never lets a read that started before a write undo it', async () => {
  const tasks = await engine()
  tasks.attach(sessions())
  await tasks.restore()
  const { repo_id } = (await tasks.add({ task: cron('nightly', { target_session: 'desk' }) })).task
  // The engine's next read of the file (its file watch or a list, whichever comes first) is held after reading.
  const other = new TaskStore(join(dir, 'tasks.json'))
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the store it is spied on for
  const load = TaskStore.prototype.load
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let heldRead: Promise<unknown> | undefined
  vi.spyOn(TaskStore.prototype, 'load').mockImplementation(function (this: TaskStore) {
    if (this === other || heldRead) return load.call(this)
    heldRead = load.call(this).then(async (loaded) => (await held, loaded))
    return heldRead as ReturnType<typeof load>
  })
  // Another writer changes the file, so the engine reloads it.
  await other.transact((doc) => ({ result: undefined, next: doc }))
  void tasks.listJson()
  await vi.waitFor(() => expect(heldRead).toBeDefined())
  await tasks.update({ id: 'nightly', update: { enabled: false } })
  release()
  await heldRead
  await new Promise((resolve) => setImmediate(resolve))
  // What the engine holds now, without another read: the update, not the older read.
  expect(tasks.enabledTargeting('desk', repo_id)).toEqual([])
  vi.restoreAllMocks()
})

it('joins a fire that comes while the previous fire of the task is still starting its session', async () => {
  let started!: () => void
  const starting = new Promise<void>((resolve) => (started = resolve))
  let spawns = 0
  const tasks = await engine()
  tasks.attach(
    sessions({
      spawn: async () => {
        spawns++
        await starting
        return { id: 'id-join', title: 'join' }
      },
    }),
  )
  await tasks.restore()
  await tasks.add({ task: cron('join') })
  const first = tasks.trigger({ id: 'join' })
  const second = tasks.trigger({ id: 'join' })
  await new Promise((resolve) => setTimeout(resolve, 100))
  started()
  await expect(Promise.all([first, second])).resolves.toEqual([{ ok: true }, { ok: true }])
  expect(spawns).toBe(1)
})

it('refuses an enabled task on a session being archived, before anything is written', async () => {
  const tasks = await engine()
  tasks.attach(sessions({ targetState: () => 'archiving' }))
  await tasks.restore()
  await tasks.add({ task: cron('later', { target_session: 'shelf', enabled: false }) })
  const before = await storeFiles()
  await expect(tasks.add({ task: cron('now', { target_session: 'shelf' }) })).rejects.toThrow(
    'task now: target_session "shelf" is archiving; restore it or disable the task',
  )
  await expect(tasks.update({ id: 'later', update: { enabled: true } })).rejects.toThrow('task later: target_session "shelf" is archiving')
  expect(await storeFiles()).toEqual(before)
})

it('counts a task being committed as targeting its session, so an archive checking meanwhile sees it', async () => {
  const tasks = await engine()
  let seen: string[] = []
  tasks.attach(
    sessions({
      targetState: (title, repoId) => {
        seen = tasks.enabledTargeting(title, repoId)
        return 'live'
      },
    }),
  )
  await tasks.restore()
  await tasks.add({ task: cron('claim', { target_session: 'desk' }) })
  expect(seen).toEqual(['claim'])
})

it('applies on_complete at the next start to a run whose session settled as the daemon stopped', async () => {
  const first = await engine()
  first.attach(sessions())
  await first.restore()
  await first.add({ task: cron('tidy', { on_complete: 'kill' }) })
  await first.trigger({ id: 'tidy' })
  await first.close()
  expect(await storedRuns()).toHaveLength(1)

  const killed: string[] = []
  const second = await engine(true)
  second.attach(sessions({ settled: (id) => id === 'id-tidy', kill: async (id) => void killed.push(id) }))
  await second.restore()
  await vi.waitFor(async () => expect(await storedRuns()).toEqual([]))
  expect(killed).toEqual(['id-tidy'])
})

it('lets a completion under way finish before it closes', async () => {
  let settle!: (id: string, how: 'settled' | 'removed') => void
  let killDone!: () => void
  const tasks = await engine()
  tasks.attach(
    sessions({
      onSettled: (listener) => (settle = listener),
      kill: () => new Promise<void>((resolve) => (killDone = resolve)),
    }),
  )
  await tasks.restore()
  await tasks.add({ task: cron('slow', { on_complete: 'kill' }) })
  await tasks.trigger({ id: 'slow' })
  settle('id-slow', 'settled')
  let closed = false
  const closing = tasks.close().then(() => (closed = true))
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(closed).toBe(false)
  killDone()
  await closing
  expect(await storedRuns()).toEqual([])
})
