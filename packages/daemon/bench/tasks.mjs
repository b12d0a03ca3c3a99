// Tasks: ListTasks latency over 1,000 stored tasks, AddTask throughput from 20 concurrent
// clients, mixed writes from 50 clients over 1,000 stored tasks, how late the scheduler
// fires 200 tasks due at one minute boundary, and how long a watch command's output line
// takes to become a prompt handed to sessions; each against a floor measured in the same
// run (a bare server answering the same bytes, the old whole-file store write alone,
// bare timers, the command's pipe read directly).
import { execFile } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { TaskStore } from '@svc/core'
import { fmt, latencies, latencyRows, report, SECONDS, startDaemon, startFloor, throughput, versusBare } from './harness.mjs'
import { lostWrites, storedTasks, taskWrites } from './task-writes.mjs'

const FLOOR = fileURLToPath(new URL('./tasks-floor.mjs', import.meta.url))
const exec = promisify(execFile)
const STORED = 1000
const LISTS = 300
const CLIENTS = 20
const WRITERS = 50
const MUTATIONS = 100
const FIRING = 200
const LINES = 50

/** tasks.json holding `count` enabled tasks made by `task(n)`; the daemon fills in the fields left out. */
function storeOf(count, task) {
  const tasks = Array.from({ length: count }, (_, n) => ({ name: `task ${n}`, prompt: 'bench', enabled: true, ...task(n) }))
  return `${JSON.stringify({ store_generation: count, tasks, runs: [] })}\n`
}

/** A daemon in UTC (cron uses the local zone) whose clock starts at `clockStart`, over `tasks.json`. */
function daemonWith(store, clockStart) {
  return startDaemon({
    env: { TZ: 'UTC', ...(clockStart ? { SVC_CLOCK_START: clockStart } : {}) },
    prepare: (paths) => writeFile(paths.tasks, store),
  })
}

async function withDaemon(daemon, work) {
  try {
    return await work(daemon)
  } finally {
    await daemon.stop()
  }
}

async function withFloor(work) {
  const floor = await startFloor(FLOOR)
  try {
    return await work(floor)
  } finally {
    await floor.stop()
  }
}

const listRoute = { method: 'POST', path: '/v1/ListTasks', body: '{}' }

/**
 * Two stores of 1,000 enabled cron tasks: yearly schedules (health is one occurrence
 * check each), and every-minute-between-midnight-and-3am schedules read at 03:30 with
 * no run since midnight (each counts 100+ missed occurrences, the cap: the worst case).
 */
async function listTasks() {
  const yearly = storeOf(STORED, (n) => ({
    id: `y${n}`,
    cron_expr: `${n % 60} ${n % 24} ${1 + (n % 28)} ${1 + (n % 12)} *`,
    created_at: '2026-01-01T00:00:00.000Z',
  }))
  const behind = storeOf(STORED, (n) => ({ id: `m${n}`, cron_expr: '* 0-2 * * *', created_at: '2026-01-01T00:00:00.000Z' }))
  for (const [label, store, clock] of [
    ['yearly schedules', yearly, '2026-06-01T12:00:00Z'],
    ['3 h behind, missed count capped', behind, '2026-01-01T03:30:00Z'],
  ]) {
    await withDaemon(await daemonWith(store, clock), async (daemon) => {
      const [first] = await latencies(daemon.client, listRoute, 1)
      const compared = await versusBare(daemon, listRoute, LISTS)
      report(`ListTasks with ${STORED.toLocaleString('en-US')} tasks, ${label}, ${LISTS} sequential reads (first read ${fmt.ms(first)})`, latencyRows(compared, { ratio: '<= 1.50' }))
    })
  }
}

async function addTasks() {
  await withDaemon(await daemonWith(storeOf(0, () => ({}))), async (daemon) => {
    const repo = join(daemon.home, 'repo')
    await exec('git', ['init', '-q', repo])
    const body = JSON.stringify({ task: { cron_expr: '0 0 1 1 *', prompt: 'bench', project_path: repo } })
    const seconds = Math.max(2, SECONDS)
    const rps = await throughput(daemon.paths.socket, { method: 'POST', path: '/v1/AddTask', body, connections: CLIENTS, seconds })
    const stored = (await new TaskStore(daemon.paths.tasks).load()).doc.tasks
    const floor = await withFloor((runner) =>
      runner.run({ kind: 'store', path: join(daemon.home, 'floor-tasks.json'), task: stored[0], writers: CLIENTS, seconds }),
    )
    report(`AddTask from ${CLIENTS} concurrent clients for ${seconds}s (journal lines, committed in batches)`, [
      ['floor: the old locked whole-file write, no HTTP', fmt.rps(floor.rps)],
      ['svc AddTask', `${fmt.rps(rps)}  (${stored.length.toLocaleString('en-US')} tasks stored)`],
      ['throughput ratio', (rps / floor.rps).toFixed(2)],
    ])
  })
}

/**
 * 50 clients, each making 100 adds, updates and removes of its own tasks, one at a time,
 * over 1,000 stored tasks; then the daemon is killed with SIGKILL and the store read as
 * the next start would: every acknowledged write must be there. The floor is the write
 * every mutation cost before the journal: tasks.json rewritten whole under its lock.
 */
async function concurrentWrites() {
  const stored = storedTasks(STORED)
  await withDaemon(await daemonWith(stored), async (daemon) => {
    const figures = await taskWrites({ socketPath: daemon.paths.socket, clients: WRITERS, mutations: MUTATIONS })
    if (figures.failures.length > 0) throw new Error(`bench: ${figures.failures.length} task writes failed, first: ${figures.failures[0]}`)
    process.kill(daemon.pid, 'SIGKILL')
    const { doc } = await new TaskStore(daemon.paths.tasks).load()
    const lost = lostWrites(figures.expected, doc.tasks)
    const seconds = Math.max(2, SECONDS)
    const floor = await withFloor((runner) =>
      runner.run({ kind: 'store', path: join(daemon.home, 'floor-tasks.json'), task: doc.tasks[0], writers: WRITERS, seconds, stored }),
    )
    report(`Task writes from ${WRITERS} concurrent clients, ${MUTATIONS} mutations each (adds, updates, removes), ${STORED.toLocaleString('en-US')} tasks stored`, [
      [`floor: the old locked whole-file write, ${WRITERS} writers, no HTTP`, fmt.rps(floor.rps)],
      ['svc mutations', `${fmt.rps(figures.rps)}  ${fmt.spread(figures.latencies)}  (target p99 < 500 ms)`],
      ['throughput ratio to the floor', fmt.ratio(figures.rps / floor.rps, '>= 5')],
      ['acknowledged writes lost after SIGKILL', `${lost.length} of ${figures.expected.size} tasks written  (target 0)`],
    ])
  })
}

/**
 * 200 every-minute tasks and a clock three seconds before a minute boundary. The runs are
 * made cheap on purpose: their project directory does not exist, so each run fails at
 * once in sessions instead of creating 200 worktrees; what is measured is the scheduler:
 * last_run_at is stamped when the timer hands the task to its run, before the session call.
 */
async function cronLateness() {
  const store = storeOf(FIRING, (n) => ({
    id: `c${n}`,
    cron_expr: '* * * * *',
    project_path: '/nonexistent/svc-bench',
    created_at: '2026-01-01T00:00:50.000Z',
  }))
  await withDaemon(await daemonWith(store, '2026-01-01T00:00:57.000Z'), async (daemon) => {
    const due = Date.parse('2026-01-01T00:01:00.000Z')
    const { tasks } = await waitUntil(daemon, (list) => list.tasks.every((task) => task.last_run_at), 20_000)
    const late = tasks.map((task) => Date.parse(task.last_run_at) - due).sort((a, b) => a - b)
    const floor = await withFloor((runner) => runner.run({ kind: 'timers', count: FIRING, at: Date.now() + 1000 }))
    report(`Cron firing lateness, ${FIRING} tasks due at one minute boundary (fire stamp minus due instant)`, [
      [`floor: ${FIRING} bare timers due at one instant`, fmt.spread(floor.late.sort((a, b) => a - b))],
      ['svc scheduler', `${fmt.spread(late)}  max ${fmt.ms(late.at(-1))}  (target p99 < 100 ms)`],
    ])
  })
}

/**
 * A watch command that prints one line each time the bench creates a file, and writes
 * down the instant it printed it. The line becomes a prompt handed to sessions (the run's
 * last_run_at is stamped then); its directory is not a git checkout, so the run itself
 * fails at once and the figure stays the watcher's own.
 */
async function watchLatency() {
  const watch_cmd = 'while :; do if [ -e go ]; then rm go; t=$(date +%s%3N); echo $t > printed; echo "line $t"; fi; sleep 0.002; done'
  let dir = ''
  const daemon = await startDaemon({
    env: { TZ: 'UTC' },
    // The watch command's directory sits in the daemon's home, so it goes with it.
    prepare: async (paths) => {
      dir = join(paths.home, 'watched')
      await mkdir(dir)
      await writeFile(paths.tasks, storeOf(1, () => ({ id: 'w', watch_cmd, prompt: 'handle {{line}}', project_path: dir })))
    },
  })
  await withDaemon(daemon, async () => {
    const times = []
    let last = ''
    for (let n = 0; n < LINES; n++) {
      await writeFile(join(dir, 'go'), '')
      const [task] = (await waitUntil(daemon, (list) => list.tasks[0].last_run_at && list.tasks[0].last_run_at !== last, 10_000)).tasks
      last = task.last_run_at
      times.push(Date.parse(task.last_run_at) - Number(await readFile(join(dir, 'printed'), 'utf8')))
    }
    times.sort((a, b) => a - b)
    // Its own directory: the task's command is still watching for `go` in the other one.
    const floorDir = join(daemon.home, 'floor-watched')
    await mkdir(floorDir)
    const floor = await withFloor((runner) => runner.run({ kind: 'watch', command: watch_cmd, dir: floorDir, lines: LINES }))
    report(`Watch line to prompt, ${LINES} lines (the line's print instant to the run's stamp, 1 ms resolution)`, [
      ['floor: the same command, its pipe read directly', fmt.spread(floor.times.sort((a, b) => a - b))],
      ['svc watch task', fmt.spread(times)],
    ])
  })
}

async function waitUntil(daemon, accept, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const list = await daemon.client.call('ListTasks')
    if (accept(list)) return list
    if (Date.now() > deadline) throw new Error('bench: condition not met in time')
    await sleep(20)
  }
}

export async function run() {
  await listTasks()
  await addTasks()
  await concurrentWrites()
  await cronLateness()
  await watchLatency()
}
