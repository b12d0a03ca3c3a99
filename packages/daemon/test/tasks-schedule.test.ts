import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { startDaemon, tempHomes, waitFor, type TestDaemon, makeRepo, paneText, session, startSessionDaemon } from '@svc/test-kit'

const homes = tempHomes()
afterAll(homes.release)

/** A daemon whose wall clock starts at `start` (timers stay real). */
const at = (home: string, start: string) => startDaemon({ home, env: { SVC_CLOCK_START: start } })

const byId = async (daemon: TestDaemon) =>
  Object.fromEntries((await daemon.client.call('ListTasks')).tasks.map((task) => [task.id, task]))

it('derives next run, missed occurrences, overdue, unschedulable and unassessable at read time', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const home = join(dir, 'svc')
  let daemon = await at(home, '2026-01-01T00:00:30Z')
  const cron = (id: string, cron_expr: string, enabled = true) =>
    daemon.client.call('AddTask', { task: { id, cron_expr, prompt: 'p', project_path: repo, enabled } })
  const added = await cron('tenmin', '*/10 * * * *')
  expect(added.task).toMatchObject({ arming: 'armed', next_run_at: '2026-01-01T00:10:00.000Z', missed_occurrences: 0 })
  expect(added.task.created_at?.startsWith('2026-01-01T00:00:3')).toBe(true)
  await cron('minutely', '* * * * *')
  await cron('never', '0 0 30 2 *')
  await cron('off', '* * * * *', false)
  await daemon.stop()

  // Three hours later, nothing ran.
  daemon = await at(home, '2026-01-01T03:05:30Z')
  const tasks = await byId(daemon)
  expect(tasks.tenmin).toMatchObject({
    arming: 'armed',
    next_run_at: '2026-01-01T03:10:00.000Z',
    missed_occurrences: 18,
    missed_occurrences_capped: false,
    overdue: true,
    unassessable: false,
  })
  expect(tasks.minutely).toMatchObject({ missed_occurrences: 100, missed_occurrences_capped: true, overdue: true })
  expect(tasks.never).toMatchObject({
    arming: 'unschedulable',
    unschedulable: true,
    unschedulable_reason: 'cron_expr "0 0 30 2 *" never fires: day of month 30 never occurs in month 2',
    missed_occurrences: 0,
    overdue: false,
  })
  expect(tasks.never).not.toHaveProperty('next_run_at')
  expect(tasks.off).toMatchObject({ arming: 'disabled', missed_occurrences: 0, overdue: false })
  expect(tasks.off).not.toHaveProperty('next_run_at')

  // None of it is stored.
  const file = JSON.parse(await readFile(daemon.paths.tasks, 'utf8'))
  for (const field of ['next_run_at', 'arming', 'overdue', 'missed_occurrences', 'unschedulable', 'unassessable']) {
    expect(file.tasks[0]).not.toHaveProperty(field)
  }

  // A record with no reference time (hand-edited) cannot be assessed.
  delete file.tasks[0].created_at
  await writeFile(daemon.paths.tasks, JSON.stringify(file))
  expect((await byId(daemon)).tenmin).toMatchObject({ unassessable: true, missed_occurrences: 0, overdue: false })
})

it('fires an every-minute task at the minute boundary through the real scheduler, into a spawned session', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const daemon = await startSessionDaemon({ home: join(dir, 'svc'), env: { SVC_CLOCK_START: '2026-01-01T00:00:57.500Z' } })
  await daemon.client.call('AddTask', { task: { id: 'tick', cron_expr: '* * * * *', prompt: 'tick', project_path: repo } })
  const fired = await waitFor(async () => {
    const task = (await byId(daemon)).tick
    return task?.last_run_at ? task : undefined
  }, 20_000)
  const lateness = Date.parse(fired.last_run_at as string) - Date.parse('2026-01-01T00:01:00.000Z')
  expect(lateness).toBeGreaterThanOrEqual(0)
  expect(lateness).toBeLessThan(1000)
  expect(fired).toMatchObject({ next_run_at: '2026-01-01T00:02:00.000Z', missed_occurrences: 0, overdue: false })
  // The run spawned a session named from the task, and the prompt reached its agent.
  expect(fired.last_run_status).toBe('spawned tick')
  const spawned = await session(daemon, 'tick')
  // The agent starts, draws, then takes the prompt: slow on a loaded machine.
  await waitFor(() => paneText(daemon.home, spawned.tabs[0]?.tmux_name as string).includes('received: tick'), 30_000)
  const log = await readFile(daemon.paths.log, 'utf8')
  expect(log).toContain('"msg":"cron task fired"')
  expect(log).toContain('"due":"2026-01-01T00:01:00.000Z"')
})

it("arms cron expressions in the daemon's local time zone", async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  // 07:00 in New York (UTC-5 in January): the next 09:00 there is 14:00 UTC.
  const daemon = await startDaemon({ home: join(dir, 'svc'), env: { TZ: 'America/New_York', SVC_CLOCK_START: '2026-01-01T12:00:00Z' } })
  const { task } = await daemon.client.call('AddTask', { task: { id: 'morning', cron_expr: '0 9 * * *', prompt: 'p', project_path: repo } })
  expect(task.next_run_at).toBe('2026-01-01T14:00:00.000Z')
})
