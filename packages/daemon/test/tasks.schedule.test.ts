import { chmod, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FrameOf } from '@svc/test-kit'
import { logShowing, recordEvents, startDaemon, tempHomes, waitFor, type TestDaemon, makeRepo, paneText, session, startSessionDaemon } from '@svc/test-kit'

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
  const log = await logShowing(daemon, '"msg":"cron task fired"')
  expect(log).toContain('"due":"2026-01-01T00:01:00.000Z"')
})

/** The task.updated frames for task `id` so far. */
const updatesOf = (frames: Array<FrameOf<'task.updated'>>, id: string) => frames.filter((frame) => frame.data.id === id).map((frame) => frame.data)

it('announces overdue turning true with time alone, after a run missed while the daemon was down', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const home = join(dir, 'svc')
  // A long poll interval: the missed 01:00 run turns overdue 8 s after it, with the event feed long open.
  const config = { network: { listen_addr: '' }, daemon_poll_interval: 8000 }
  let daemon = await startDaemon({ home, config, env: { SVC_CLOCK_START: '2026-01-01T00:59:30Z' } })
  await daemon.client.call('AddTask', { task: { id: 'hourly', cron_expr: '0 * * * *', prompt: 'p', project_path: repo } })
  await daemon.stop()

  daemon = await startDaemon({ home, config, env: { SVC_CLOCK_START: '2026-01-01T01:00:01Z' } })
  const feed = await recordEvents(daemon.client)
  expect((await byId(daemon)).hourly).toMatchObject({ missed_occurrences: 1, overdue: false, next_run_at: '2026-01-01T02:00:00.000Z' })
  const turned = await feed.next('task.updated', (frame) => frame.data.id === 'hourly', 0, 20_000)
  expect(turned.data).toMatchObject({ missed_occurrences: 1, overdue: true, next_run_at: '2026-01-01T02:00:00.000Z' })
  expect(turned.data.last_run_at).toBeUndefined()
  // The event is the task as ListTasks now shows it; nothing else moves, so nothing more is sent.
  expect((await byId(daemon)).hourly).toEqual(turned.data)
  await sleep(2_000)
  expect(updatesOf(feed.ofKind('task.updated'), 'hourly')).toHaveLength(1)
  feed.close()
})

it('announces next_run_at moved by a fire whose run is still starting, before the run is recorded', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  // Creating the run's worktree takes 4 s: until then the fire has recorded nothing.
  const hook = join(repo, '.git', 'hooks', 'post-checkout')
  await writeFile(hook, '#!/bin/sh\nsleep 4\n')
  await chmod(hook, 0o755)
  // A one-second limit on changes by time alone (a minute outside tests), so the look after the fire comes 1 s after it.
  const env = { SVC_CLOCK_START: '2026-01-01T00:00:57.000Z', SVC_TASK_TURN_MS: '1000' }
  const daemon = await startSessionDaemon({ home: join(dir, 'svc'), env })
  const feed = await recordEvents(daemon.client)
  await daemon.client.call('AddTask', { task: { id: 'tick', cron_expr: '* * * * *', prompt: 'tick', project_path: repo } })
  const moved = await feed.next('task.updated', (frame) => frame.data.id === 'tick', 0, 20_000)
  expect(moved.data).toMatchObject({ next_run_at: '2026-01-01T00:02:00.000Z', missed_occurrences: 0, overdue: false })
  expect(moved.data.last_run_at).toBeUndefined()
  const recorded = await feed.next('task.updated', (frame) => frame.data.id === 'tick' && frame.data.last_run_at !== undefined, 0, 30_000)
  expect(recorded.data).toMatchObject({ next_run_at: '2026-01-01T00:02:00.000Z', last_run_status: 'spawned tick' })
  // Between the two, time alone changed nothing more: one update for the moved next_run_at, not one per look.
  const updates = updatesOf(feed.ofKind('task.updated'), 'tick')
  expect(updates.indexOf(recorded.data)).toBe(1)
  feed.close()
})

it("arms cron expressions in the daemon's local time zone", async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  // 07:00 in New York (UTC-5 in January): the next 09:00 there is 14:00 UTC.
  const daemon = await startDaemon({ home: join(dir, 'svc'), env: { TZ: 'America/New_York', SVC_CLOCK_START: '2026-01-01T12:00:00Z' } })
  const { task } = await daemon.client.call('AddTask', { task: { id: 'morning', cron_expr: '0 9 * * *', prompt: 'p', project_path: repo } })
  expect(task.next_run_at).toBe('2026-01-01T14:00:00.000Z')
})
