import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { TaskStore } from '@svc/core'
import { tempHomes, waitFor, type TestDaemon, branches, makeRepo, paneText, session, startSessionDaemon, waitForSession, worktrees, openSessionDaemon } from '@svc/test-kit'

const homes = tempHomes()
let daemon: TestDaemon
let repo: string

beforeAll(async () => ({ repo, daemon } = await openSessionDaemon(homes)))
afterAll(homes.release)

const task = async (id: string) => (await daemon.client.call('ListTasks')).tasks.find((candidate) => candidate.id === id)
/** The runs in flight as stored, read as another process would. */
const storedRuns = async (from: TestDaemon) => (await new TaskStore(from.paths.tasks).load()).doc.runs
const titles = async () => (await daemon.client.call('Snapshot', {})).instances.map((instance) => instance.title)
const agentPane = async (title: string) => paneText(daemon.home, (await session(daemon, title)).tabs[0]?.tmux_name as string)

it('applies on_complete kill once a spawned session settles: the session, its worktree and its branch go', async () => {
  await daemon.client.call('AddTask', {
    task: { id: 'once', name: 'once', cron_expr: '0 0 1 1 *', prompt: 'Summarise the open issues', project_path: repo, on_complete: 'kill' },
  })
  expect(await daemon.client.call('TriggerTask', { id: 'once' })).toEqual({ ok: true })
  const ran = await task('once')
  expect(ran?.last_run_status).toBe('spawned once')
  expect(branches(repo)).toContain('agent/once')
  expect(worktrees(repo)).toContain(`${repo}-once`)
  // The fake agent answers, works briefly and settles; the kill follows.
  await waitFor(async () => !(await titles()).includes('once'), 15_000)
  expect(branches(repo)).not.toContain('agent/once')
  expect(worktrees(repo)).toEqual([repo])
  expect(existsSync(`${repo}-once`)).toBe(false)
})

it('applies on_complete archive, keeping the session restorable', async () => {
  await daemon.client.call('AddTask', {
    task: { id: 'shelve', name: 'shelve', cron_expr: '0 0 1 1 *', prompt: 'Write the release notes', project_path: repo, on_complete: 'archive' },
  })
  await daemon.client.call('TriggerTask', { id: 'shelve' })
  await waitForSession(daemon, 'shelve', (instance) => instance.liveness_name === 'archived')
})

it('delivers into target_session, creating it first when it does not exist', async () => {
  await daemon.client.call('AddTask', {
    task: { id: 'nudge', cron_expr: '0 0 1 1 *', prompt: 'Check the build status', project_path: repo, target_session: 'desk' },
  })
  await daemon.client.call('TriggerTask', { id: 'nudge' })
  expect((await task('nudge'))?.last_run_status).toBe('started desk')
  await waitFor(async () => (await agentPane('desk')).includes('received: Check the build status'))
  await waitForSession(daemon, 'desk', (instance) => instance.liveness_name === 'ready')
  await daemon.client.call('UpdateTask', { id: 'nudge', update: { prompt: 'And the coverage' } })
  await daemon.client.call('TriggerTask', { id: 'nudge' })
  expect((await task('nudge'))?.last_run_status).toBe('sent desk')
  await waitFor(async () => (await agentPane('desk')).includes('received: And the coverage'))
})

it('refuses to archive a session an enabled task targets, and to enable a task on an archived session', async () => {
  await daemon.client.call('CreateSession', { repo_path: repo, title: 'keeper' })
  const cron = { cron_expr: '0 0 1 1 *', prompt: 'p', project_path: repo, target_session: 'keeper' }
  await daemon.client.call('AddTask', { task: { id: 'guard', ...cron } })
  const archive = await daemon.post('/v1/ArchiveSession', { title: 'keeper' })
  expect(archive.status).toBe(500)
  expect(archive.json.error.message).toContain('guard')
  expect((await session(daemon, 'keeper')).liveness_name).not.toBe('archived')

  await daemon.client.call('UpdateTask', { id: 'guard', update: { enabled: false } })
  await daemon.client.call('ArchiveSession', { title: 'keeper' })
  const enable = await daemon.post('/v1/UpdateTask', { id: 'guard', update: { enabled: true } })
  expect(enable.json.error).toEqual({
    message: 'task guard: target_session "keeper" is archived; restore it or disable the task',
    daemon_rejected: true,
  })
  const add = await daemon.post('/v1/AddTask', { task: { id: 'guard-2', ...cron } })
  expect(add.json.error.message).toBe('task guard-2: target_session "keeper" is archived; restore it or disable the task')
  expect((await task('guard'))?.enabled).toBe(false)
  expect(await task('guard-2')).toBeUndefined()
  expect((await daemon.client.call('AddTask', { task: { id: 'guard-3', ...cron, enabled: false } })).task.enabled).toBe(false)
})

it('turns watch lines into prompts in spawned sessions, never more than max_concurrent_runs running', async () => {
  await daemon.client.call('AddTask', {
    task: {
      id: 'lines',
      name: 'lines',
      watch_cmd: "printf 'a\\nb\\nc\\n'; sleep 600",
      prompt: '/busy 2 {{line}}',
      project_path: repo,
      max_concurrent_runs: 2,
    },
  })
  let most = 0
  const spawned = await waitFor(async () => {
    const mine = (await daemon.client.call('Snapshot', {})).instances.filter((instance) => instance.title.startsWith('lines'))
    most = Math.max(most, mine.filter((instance) => instance.liveness_name !== 'ready').length)
    return mine.length === 3 && mine.every((instance) => instance.liveness_name === 'ready') ? mine : undefined
  }, 30_000)
  expect(most).toBe(2)
  expect(spawned.map((instance) => instance.title).sort()).toEqual(['lines', 'lines-2', 'lines-3'])
  expect(await agentPane('lines')).toContain('/busy 2 a')
  expect(await agentPane('lines-2')).toContain('/busy 2 b')
  expect(await agentPane('lines-3')).toContain('/busy 2 c')
  expect((await task('lines'))?.last_run_status).toBe('spawned lines-3')
  await daemon.client.call('RemoveTask', { id: 'lines' })
})

it('holds the excess in a bounded queue and counts what overflows in dropped_events', async () => {
  await daemon.client.call('AddTask', {
    task: { id: 'flood', name: 'flood', watch_cmd: 'echo 0; sleep 1; seq 1 102; sleep 600', prompt: '/busy 30 {{line}}', project_path: repo },
  })
  // The first line's run holds the only slot; of the next 102 lines a hundred wait and two overflow.
  await waitFor(async () => (await task('flood'))?.dropped_events === 2, 15_000)
  await waitForSession(daemon, 'flood', (instance) => instance.liveness_name === 'running')
  // Disabling stops the watcher; what still waited is dropped too.
  await daemon.client.call('UpdateTask', { id: 'flood', update: { enabled: false } })
  await waitFor(async () => (await task('flood'))?.dropped_events === 102)
  expect((await titles()).filter((title) => title.startsWith('flood'))).toEqual(['flood'])
})

it('completes a run spawned before a daemon restart: the stored run is adopted and on_complete applies when it settles', { timeout: 60_000 }, async () => {
  const dir = await homes.make()
  const own = await makeRepo(dir)
  const home = join(dir, 'svc')
  // A slower poll: an agent starved of CPU for one interval on a loaded machine would look
  // settled, and a run whose session settled before the stop completes at once on restart.
  const settings = { daemon_poll_interval: '600ms' }
  let restarted = await startSessionDaemon({ home, settings })
  await restarted.client.call('AddTask', {
    // Long enough to outlast a slow stop and start on a loaded machine, and still be working after.
    task: { id: 'long', name: 'long', cron_expr: '0 0 1 1 *', prompt: '/busy 10 long', project_path: own, on_complete: 'kill' },
  })
  await restarted.client.call('TriggerTask', { id: 'long' })
  const stored = await storedRuns(restarted)
  expect(stored).toEqual([expect.objectContaining({ title: 'long', task_id: 'long' })])
  await restarted.stop()

  restarted = await startSessionDaemon({ home, settings })
  // Still working a second later: not completed yet.
  await sleep(1000)
  expect((await session(restarted, 'long')).liveness_name).toBe('running')
  await waitFor(async () => (await restarted.client.call('Snapshot', {})).instances.length === 0, 25_000)
  expect(branches(own)).toEqual(['main'])
  await waitFor(async () => (await storedRuns(restarted)).length === 0)
})
