import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { journalPathOf, repoIdOf, TaskStore } from '@svc/core'
import { runCli, startDaemon, tempHomes, type TestDaemon, makeRepo } from '@svc/test-kit'

const homes = tempHomes()
let daemon: TestDaemon
let repo: string
let other: string

beforeAll(async () => {
  const dir = await homes.make()
  repo = await makeRepo(dir)
  other = await makeRepo(dir, 'other')
  await mkdir(join(dir, 'plain'))
  daemon = await startDaemon({ home: join(dir, 'svc') })
})
beforeEach(async () => {
  // Every test starts from an empty store; the daemon picks the change up on the next call.
  await writeFile(daemon.paths.tasks, JSON.stringify({ store_generation: 0, tasks: [], runs: [] }))
})
afterAll(homes.release)

const call = (route: string, body: unknown) => daemon.post(`/v1/${route}`, body)
/** What is stored, read as another process would. */
const stored = async () => (await new TaskStore(daemon.paths.tasks).load()).doc
/** Both files of the store, byte for byte. */
const storeFiles = () => Promise.all([daemon.paths.tasks, journalPathOf(daemon.paths.tasks)].map((path) => readFile(path, 'utf8').catch(() => undefined)))
const list = async () => (await daemon.client.call('ListTasks')).tasks
const cron = (fields: Record<string, unknown> = {}) => ({ cron_expr: '*/5 * * * *', prompt: 'tidy up', project_path: repo, ...fields })

async function add(task: Record<string, unknown>, actor?: string) {
  const reply = await call('AddTask', { task, ...(actor ? { actor } : {}) })
  expect(reply.json.error).toBeNull()
  return reply.json.data.task
}

/** The request fails with a 500 the daemon marks, naming `message`, and the store is byte for byte the same. */
async function refused(route: string, body: unknown, message: string) {
  const before = await storeFiles()
  const reply = await call(route, body)
  expect(reply.status, reply.text).toBe(500)
  expect(reply.json).toEqual({ data: null, error: { message: expect.stringContaining(message), daemon_rejected: true } })
  expect(await storeFiles()).toEqual(before)
  return reply.json.error.message as string
}

describe('ListOnComplete', () => {
  it('lists the completion policies, least destructive first', async () => {
    expect(await daemon.client.call('ListOnComplete')).toEqual({
      values: [
        { value: '', hint: expect.stringContaining('keep') },
        { value: 'archive', hint: expect.stringContaining('restorable') },
        { value: 'kill', hint: expect.stringContaining('branch') },
      ],
    })
  })
})

describe('AddTask and ListTasks', () => {
  it('stores a validated task, mints its id, and returns it with ordinal, generation and schedule health', async () => {
    const task = await add({ ...cron({ project_path: `${repo}/./` }), name: 'tidy', on_complete: 'keep' })
    expect(task).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{8}$/),
      name: 'tidy',
      prompt: 'tidy up',
      cron_expr: '*/5 * * * *',
      watch_cmd: '',
      target_session: '',
      max_concurrent_runs: 0,
      on_complete: '',
      project_path: repo,
      repo_id: repoIdOf(repo),
      program: '',
      enabled: true,
      dropped_events: 0,
      audit: [{ at: task.created_at, actor: 'api', op: 'add' }],
      arming: 'armed',
      next_run_at: expect.stringMatching(/:[0-5][05]:00\.000Z$/),
      overdue: false,
      missed_occurrences: 0,
      missed_occurrences_capped: false,
      unschedulable: false,
      unassessable: false,
      ordinal: 0,
      store_generation: 1,
    })
    expect(Math.abs(Date.parse(task.created_at) - Date.now())).toBeLessThan(5000)
    await add({ id: 'second', watch_cmd: 'tail -f /dev/null', project_path: other, enabled: false }, 'cli')

    const tasks = await list()
    expect(tasks.map((t) => [t.id, t.ordinal, t.store_generation, t.arming])).toEqual([
      [task.id, 0, 2, 'armed'],
      ['second', 1, 2, 'disabled'],
    ])
    expect(tasks[1]?.audit).toEqual([{ at: expect.any(String), actor: 'cli', op: 'add' }])
    // Read-time fields are never stored.
    const file = await stored()
    expect(file.store_generation).toBe(2)
    const raw = (await storeFiles()).join('')
    expect(raw).toContain('"on_complete":""')
    expect(raw).not.toContain('"arming"')
    expect(raw).not.toContain('"ordinal"')
  })

  it('takes a task object read back from ListTasks, ignoring what the daemon owns', async () => {
    const first = await add(cron({ id: 'original' }))
    const copy = { ...first, id: 'copy', last_run_at: '2020-01-01T00:00:00Z', last_run_status: 'forged', dropped_events: 9, audit: [] }
    const added = await add(copy)
    expect(added).toMatchObject({ id: 'copy', dropped_events: 0, ordinal: 1, audit: [{ actor: 'api', op: 'add' }] })
    expect(added).not.toHaveProperty('last_run_at')
    expect(added).not.toHaveProperty('last_run_status')
  })

  it('lets a disabled task be a draft without trigger or project', async () => {
    expect(await add({ id: 'draft', enabled: false })).toMatchObject({ id: 'draft', enabled: false, project_path: '', repo_id: '', arming: 'disabled' })
  })

  it.each([
    ['no task', () => ({}), 'task is required'],
    ['a bad id', () => ({ task: cron({ id: 'no spaces' }) }), 'task id "no spaces" is invalid'],
    ['an id too long', () => ({ task: cron({ id: 'x'.repeat(129) }) }), 'is invalid: use 1 to 128 letters'],
    ['two triggers', () => ({ task: cron({ watch_cmd: 'tail -f x' }) }), 'cron_expr and watch_cmd are both set'],
    ['no trigger', () => ({ task: { prompt: 'p', project_path: repo } }), 'an enabled task needs a trigger'],
    ['a cron task without prompt', () => ({ task: cron({ prompt: ' ' }) }), 'an enabled cron task needs a prompt'],
    ['four cron fields', () => ({ task: cron({ cron_expr: '0 0 30 2' }) }), 'must have 5 fields (minute hour day-of-month month day-of-week), not 4'],
    ['a bad cron value', () => ({ task: cron({ cron_expr: '61 * * * *' }) }), 'is not a valid cron expression'],
    ['no project', () => ({ task: cron({ project_path: undefined }) }), 'an enabled task needs project_path'],
    ['a missing project', () => ({ task: cron({ project_path: '/nonexistent/svc-test' }) }), 'project_path /nonexistent/svc-test is not a directory'],
    ['a project outside git', () => ({ task: cron({ project_path: '/proc' }) }), 'is not inside a git checkout'],
    ['a ~user project', () => ({ task: cron({ project_path: '~nobody/x' }) }), '"~user" is not supported'],
    ['max_concurrent_runs on a cron task', () => ({ task: cron({ max_concurrent_runs: 2 }) }), 'max_concurrent_runs applies only to watch tasks without target_session'],
    [
      'max_concurrent_runs with a target',
      () => ({ task: { watch_cmd: 'tail -f x', project_path: repo, target_session: 's', max_concurrent_runs: 2, enabled: false } }),
      'max_concurrent_runs applies only to watch tasks without target_session',
    ],
    ['max_concurrent_runs out of range', () => ({ task: { watch_cmd: 'tail -f x', max_concurrent_runs: 101, enabled: false } }), 'must be from 1 to 100'],
    ['a negative max_concurrent_runs', () => ({ task: { watch_cmd: 'tail -f x', max_concurrent_runs: -1, enabled: false } }), 'must be from 1 to 100'],
    ['an unknown on_complete', () => ({ task: cron({ on_complete: 'nuke' }) }), 'on_complete "nuke" is not one of "", "archive", "kill"'],
    ['on_complete with a target', () => ({ task: cron({ on_complete: 'kill', target_session: 'x', enabled: false }) }), 'on_complete applies only to sessions the task spawns'],
    ['an unknown actor', () => ({ task: cron(), actor: 'robot' }), 'actor "robot" is not one of cli, tui, api, daemon-upgrade'],
  ])('refuses %s and changes nothing', async (_name, body, message) => {
    await add(cron({ id: 'existing' }))
    const request = body() as { task?: { id?: string } }
    const error = await refused('AddTask', request, message)
    // A minted id the caller never saw is not named.
    if (request.task?.id === undefined) expect(error).not.toMatch(/task [0-9a-f]{8}/)
  })

  it('refuses a duplicate id', async () => {
    await add(cron({ id: 'twice' }))
    await refused('AddTask', { task: cron({ id: 'twice' }) }, 'task twice already exists')
  })

  it('rejects wrong JSON types and unknown fields before the handler (400)', async () => {
    const typed = await call('AddTask', { task: cron({ max_concurrent_runs: '2' }) })
    expect(typed.status).toBe(400)
    const unknown = await call('AddTask', { task: cron({ colour: 'red' }) })
    expect(unknown.status).toBe(400)
    expect(unknown.json.error.message).toBe('malformed JSON request body: json: unknown field "colour"')
    expect((await stored()).tasks).toEqual([])
  })
})

describe('UpdateTask', () => {
  it('patches only the fields present, keeps scheduler-owned fields, and returns the merged task', async () => {
    await add(cron({ id: 'patch', name: 'before' }))
    // What the scheduler wrote meanwhile, from another process's point of view.
    const file = await stored()
    Object.assign(file.tasks[0] as object, { last_run_at: '2026-01-01T00:00:00.000Z', last_run_status: 'spawned x', dropped_events: 3 })
    await writeFile(daemon.paths.tasks, JSON.stringify(file))

    const reply = await call('UpdateTask', { id: 'patch', update: { name: 'after', on_complete: 'keep' }, actor: 'tui' })
    expect(reply.json.error).toBeNull()
    expect(reply.json.data.task).toMatchObject({
      id: 'patch',
      name: 'after',
      prompt: 'tidy up',
      cron_expr: '*/5 * * * *',
      on_complete: '',
      last_run_at: '2026-01-01T00:00:00.000Z',
      last_run_status: 'spawned x',
      dropped_events: 3,
      // the hand write kept generation 1; this update makes it 2
      store_generation: 2,
    })
    expect(reply.json.data.task.audit.map((entry: { actor: string; op: string }) => [entry.actor, entry.op])).toEqual([
      ['api', 'add'],
      ['tui', 'update name,on_complete'],
    ])
  })

  it('keeps the last 20 audit entries', async () => {
    await add(cron({ id: 'audited' }))
    for (let i = 0; i < 24; i++) await daemon.client.call('UpdateTask', { id: 'audited', update: { name: `n${i}` }, actor: 'cli' })
    const [task] = await list()
    expect(task?.audit).toHaveLength(20)
    expect(task?.audit.at(-1)).toMatchObject({ actor: 'cli', op: 'update name' })
    expect(task?.audit.some((entry) => entry.op === 'add')).toBe(false)
  })

  it('keeps all of 20 concurrent patches to different fields', async () => {
    const ids = ['a', 'b', 'c', 'd']
    for (const id of ids) await add(cron({ id, enabled: false }))
    await mkdir(join(repo, 'sub'), { recursive: true })
    const patches = ids.flatMap((id) => [
      { name: `name-${id}` },
      { prompt: `prompt-${id}` },
      { program: `program-${id}` },
      { cron_expr: `${ids.indexOf(id)} * * * *` },
      { project_path: join(repo, 'sub') },
    ]).map((update, i) => ({ id: ids[Math.floor(i / 5)] as string, update }))
    const replies = await Promise.all(patches.map((patch) => call('UpdateTask', patch)))
    expect(replies.map((reply) => reply.status)).toEqual(patches.map(() => 200))
    for (const [index, id] of ids.entries()) {
      const task = (await list()).find((candidate) => candidate.id === id)
      expect(task).toMatchObject({
        name: `name-${id}`,
        prompt: `prompt-${id}`,
        program: `program-${id}`,
        cron_expr: `${index} * * * *`,
        project_path: join(repo, 'sub'),
        repo_id: repoIdOf(repo),
      })
      expect(task?.audit).toHaveLength(6)
    }
    expect((await stored()).store_generation).toBe(24)
  })

  it.each([
    ['no id', { update: { name: 'x' } }, 'id is required'],
    ['no update', { id: 'u' }, 'update is required'],
    ['an empty update', { id: 'u', update: {} }, 'update has no fields to change'],
    ['an unknown task', { id: 'ghost', update: { name: 'x' } }, 'task ghost not found'],
    ['a second trigger', { id: 'u', update: { watch_cmd: 'tail -f x' } }, 'task u: cron_expr and watch_cmd are both set'],
    ['enabling a task with no prompt', { id: 'u', update: { prompt: '' } }, 'task u: an enabled cron task needs a prompt'],
    ['a bad cron', { id: 'u', update: { cron_expr: '* * *' } }, 'must have 5 fields'],
    ['a project outside git', { id: 'u', update: { project_path: '/proc' } }, 'is not inside a git checkout'],
  ])('refuses %s and changes nothing', async (_name, body, message) => {
    await add(cron({ id: 'u' }))
    await refused('UpdateTask', body, message)
  })
})

describe('expect', () => {
  beforeEach(() => add(cron({ id: 'bound' })))

  it('refuses writes and triggers when the task was re-bound to another project', async () => {
    const wrong = { enforce: true, project_path: other }
    const message = `task bound is bound to ${repo}, not ${other} (expect.project_path); reload it and retry`
    await refused('UpdateTask', { id: 'bound', update: { name: 'x' }, expect: wrong }, message)
    await refused('RemoveTask', { id: 'bound', expect: wrong }, message)
    await refused('TriggerTask', { id: 'bound', expect: wrong }, message)
    await refused('RestartTask', { id: 'bound', expect: wrong }, message)
    await refused('UpdateTask', { id: 'bound', update: { name: 'x' }, expect: { enforce: true } }, 'expect.project_path is required')
  })

  it('lets the write through when the binding holds, or when enforce is false', async () => {
    const same = await call('UpdateTask', { id: 'bound', update: { name: 'same' }, expect: { enforce: true, project_path: `${repo}/` } })
    expect(same.json.data.task.name).toBe('same')
    const loose = await call('UpdateTask', { id: 'bound', update: { name: 'loose' }, expect: { enforce: false, project_path: other } })
    expect(loose.json.data.task.name).toBe('loose')
    const moved = await call('UpdateTask', { id: 'bound', update: { project_path: other }, expect: { enforce: true, project_path: repo } })
    expect(moved.json.data.task).toMatchObject({ project_path: other, repo_id: repoIdOf(other) })
    expect(await call('RemoveTask', { id: 'bound', expect: { enforce: true, project_path: other } })).toMatchObject({ status: 200 })
    expect(await list()).toEqual([])
  })
})

describe('RemoveTask, TriggerTask and RestartTask refusals', () => {
  it('names what is wrong, with the fixed texts', async () => {
    await add(cron({ id: 'off', enabled: false }))
    await add({ id: 'watcher', watch_cmd: 'tail -f /dev/null', project_path: repo, enabled: false })
    await refused('RemoveTask', { id: 'ghost' }, 'task ghost not found')
    await refused('RemoveTask', {}, 'id is required')
    await refused('TriggerTask', { id: 'off' }, 'task off is disabled')
    await refused('TriggerTask', { id: 'ghost' }, 'task ghost not found')
    await refused('RestartTask', { id: 'off' }, 'task off is not a watch task; RestartTask applies to enabled watch tasks')
    await refused('RestartTask', { id: 'watcher' }, 'task watcher is disabled')
    await daemon.client.call('UpdateTask', { id: 'watcher', update: { enabled: true, watch_cmd: 'sleep 600' } })
    await refused(
      'TriggerTask',
      { id: 'watcher' },
      'task watcher is a watch task; it fires when its watch command emits output, not on manual trigger',
    )
    await daemon.client.call('RemoveTask', { id: 'watcher' })
    expect((await list()).map((task) => task.id)).toEqual(['off'])
  })
})

describe('a corrupt tasks.json', () => {
  it('is reported, refused for every task operation and never overwritten; a fixed file is picked up', async () => {
    await add(cron({ id: 'kept' }))
    const good = JSON.stringify(await stored())
    const broken = good.replace('"tasks"', '"tasks" ]')
    await writeFile(daemon.paths.tasks, broken)
    const reply = await call('ListTasks', {})
    expect(reply.status).toBe(500)
    expect(reply.json.error.message).toContain(`${daemon.paths.tasks}: not valid JSON`)
    expect(reply.json.error.message).toContain('keeps the file as it is')
    await refused('AddTask', { task: cron() }, 'not valid JSON')
    await refused('UpdateTask', { id: 'kept', update: { name: 'x' } }, 'not valid JSON')
    expect(await readFile(daemon.paths.tasks, 'utf8')).toBe(broken)

    await writeFile(daemon.paths.tasks, good.replace('"tidy up"', '7'))
    expect((await call('ListTasks', {})).json.error.message).toContain('tasks.0.prompt must be string')
    await writeFile(daemon.paths.tasks, good)
    expect((await list()).map((task) => task.id)).toEqual(['kept'])
  })

  it('found at start: the daemon still starts, refuses task operations naming the file, and never writes it', async () => {
    const home = join(await homes.make(), 'svc')
    await mkdir(home)
    const broken = '{"store_generation": 3, "tasks": [ {"id": "half"'
    await writeFile(join(home, 'tasks.json'), broken)
    const started = await startDaemon({ home, config: { daemon_poll_interval: '100ms' } })
    const reply = await started.post('/v1/ListTasks', {})
    expect(reply.status).toBe(500)
    expect(reply.json.error.message).toContain(`${started.paths.tasks}: not valid JSON`)
    expect((await started.post('/v1/AddTask', { task: cron() })).json.error.message).toContain('not valid JSON')
    // Sessions are unaffected.
    expect((await started.client.call('Snapshot', {})).instances).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await readFile(started.paths.tasks, 'utf8')).toBe(broken)
  })
})

describe('svc tasks', () => {
  it('adds, lists, updates, triggers, restarts and removes tasks from the command line, recorded as cli', async () => {
    const env = { SERVICE_HOME: daemon.home }
    const added = await runCli(
      ['tasks', 'add', '--json', '--id', 'from-cli', '--cron', '*/5 * * * *', '--prompt', 'hello', '--project', repo, '--disabled'],
      env,
    )
    expect(added.code, added.stderr).toBe(0)
    expect(JSON.parse(added.stdout).task).toMatchObject({ id: 'from-cli', enabled: false, audit: [{ actor: 'cli', op: 'add' }] })
    const updated = await runCli(['tasks', 'update', 'from-cli', '--json', '--name', 'renamed', '--enable'], env)
    expect(updated.code, updated.stderr).toBe(0)
    expect(JSON.parse(updated.stdout).task).toMatchObject({ name: 'renamed', enabled: true, arming: 'armed' })
    const table = await runCli(['tasks', 'list'], env)
    expect(table.stdout).toContain('from-cli')
    const disabled = await runCli(['tasks', 'update', 'from-cli', '--disable'], env)
    expect(disabled.code).toBe(0)
    const trigger = await runCli(['tasks', 'trigger', 'from-cli'], env)
    expect(trigger).toMatchObject({ code: 1, stderr: 'svc: task from-cli is disabled\n' })
    const usage = await runCli(['tasks', 'add', '--cron', '* * * * *', '--watch', 'x'], env)
    expect(usage.code).toBe(2)
    const watch = await runCli(['tasks', 'add', '--id', 'tail', '--watch', 'sleep 600', '--project', repo], env)
    expect(watch.code, watch.stderr).toBe(0)
    const restarted = await runCli(['tasks', 'restart', 'tail'], env)
    expect(restarted.code, restarted.stderr).toBe(0)
    expect((await runCli(['tasks', 'restart', 'from-cli'], env)).stderr).toContain('task from-cli is not a watch task')
    expect((await runCli(['tasks', 'remove', 'tail'], env)).code).toBe(0)
    const options = await runCli(['tasks', 'on-complete', '--json'], env)
    expect(JSON.parse(options.stdout).values.map((option: { value: string }) => option.value)).toEqual(['', 'archive', 'kill'])
    expect((await runCli(['tasks', 'remove', 'from-cli'], env)).code).toBe(0)
    expect(await list()).toEqual([])
  })
})
