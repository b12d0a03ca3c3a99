// Shared pieces of the benchmark scripts: a real daemon on a temporary SERVICE_HOME,
// a load generator, and the printing of figures and ratios.
import { execFileSync, spawn } from 'node:child_process'
import { availableParallelism, constants } from 'node:os'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import { createClient } from '@svc/protocol'
import { makeHome, removeHome } from './daemon-home.mjs'
import { figureKey } from './budgets.mjs'

const DAEMON_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url))
const BARE = fileURLToPath(new URL('./bare-server.mjs', import.meta.url))

/** Seconds per measured comparison; BENCH_SECONDS overrides. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)

/**
 * With two or more CPUs, servers run on the last one and the load generator on the
 * others, so the two never fight over a core and the ratio reflects the server.
 */
const cpus = availableParallelism()
const pinned = cpus > 1 && (() => {
  try {
    execFileSync('taskset', ['-cp', `0-${cpus - 2}`, String(process.pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()
const generatorCpus = cpus > 2 ? `CPUs 0-${cpus - 2}` : 'CPU 0'
export const PINNING = pinned ? `servers on CPU ${cpus - 1}, load generator on ${generatorCpus}` : 'no CPU pinning'

/** An agent that never draws anything: an idle session costs the poll loop the least it can. */
export const IDLE = 'sleep 100000'

/** Ends `child` with SIGTERM unless it has ended already; resolves once it has. */
export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

/** Spawns a server process on the server CPU. */
export function spawnServer(args, options) {
  return pinned
    ? spawn('taskset', ['-c', String(cpus - 1), process.execPath, ...args], options)
    : spawn(process.execPath, args, options)
}

/** Teardowns still due; an interrupted run (Ctrl-C) runs them before it exits. */
const teardowns = new Set()
let interrupted = false
for (const signal of ['SIGINT', 'SIGTERM']) {
  // `on`, not `once`: signal-exit (a dependency of @svc/core) re-raises the signal when it
  // sees itself as the last listener, which a fired `once` listener would make it.
  process.on(signal, async () => {
    if (interrupted) process.exit(128 + constants.signals[signal]) // a second Ctrl-C gives up on teardown
    interrupted = true
    await Promise.allSettled([...teardowns].map((teardown) => teardown()))
    process.exit(128 + constants.signals[signal])
  })
}

/**
 * Registers `teardown` for an interrupted run and returns it run-once: the interrupted
 * suite's own `finally` then awaits the same teardown instead of racing a second one.
 */
export function onInterrupt(teardown) {
  let running
  const once = () => (teardowns.delete(once), (running ??= teardown()))
  teardowns.add(once)
  return once
}

export async function startDaemon({ config, env = {}, prepare } = {}) {
  const made = await makeHome(config)
  const { home, paths } = made
  if (prepare) await prepare(paths)
  const child = spawnServer([DAEMON_MAIN], {
    // Its home as working directory: a relative path in a request cannot reach a real repository.
    cwd: home,
    env: { ...process.env, SERVICE_HOME: home, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const client = createClient({ socketPath: paths.socket })
  const stop = onInterrupt(async () => {
    await stopChild(child)
    await removeHome(made)
  })
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}`)
      const health = existsSync(paths.socket) ? await client.call('Health').catch(() => undefined) : undefined
      if (health?.phase === 'ready') break
      await sleep(20)
    }
  } catch (error) {
    await stop()
    throw error
  }
  return { home, paths, client, pid: child.pid, stop }
}

/**
 * The floor server: node:http on `socketPath` answering `answers` ("METHOD /path" → body),
 * nothing else; with `framework` "fastify", a bare Fastify answering the same, and with
 * "fastify-in-daemon", that bare Fastify in a process also running a daemon.
 */
export async function startBare(socketPath, answers, framework = 'node') {
  await rm(socketPath, { force: true })
  const child = spawnServer([BARE, socketPath, framework], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  child.send(answers)
  await new Promise((resolve) => child.once('message', resolve))
  return { pid: child.pid, stop: () => stopChild(child) }
}

/**
 * A floor runner: `script` as a child on the server CPU, answering one message per job;
 * `run` resolves with its reply.
 */
export async function startFloor(script) {
  const child = spawnServer([script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  await new Promise((resolve) => child.once('message', resolve))
  const stop = onInterrupt(() => stopChild(child))
  return {
    run: (job) =>
      new Promise((resolve, reject) => {
        child.once('message', (reply) => (reply.error ? reject(new Error(`floor: ${reply.error}`)) : resolve(reply)))
        child.send(job)
      }),
    stop,
  }
}

/**
 * Sequential latency of `route` on the daemon and on a bare node:http server answering
 * the bytes the daemon answered first, in alternating halves so drift hits both alike.
 * Resolves with both sorted, and that first reply.
 */
export async function versusBare(daemon, route, count) {
  const reply = await daemon.client.raw(route.method, route.path, route.body)
  if (reply.status !== 200) throw new Error(`${route.path}: HTTP ${reply.status}`)
  const bareSocket = `${daemon.home}/bare.sock`
  const bare = await startBare(bareSocket, { [`${route.method} ${route.path}`]: reply.text })
  try {
    const targets = { floor: createClient({ socketPath: bareSocket }), svc: daemon.client }
    const times = { floor: [], svc: [] }
    for (const client of Object.values(targets)) await latencies(client, route, 20) // warm-up
    for (let half = 0; half < 2; half++) {
      for (const [name, client] of Object.entries(targets)) times[name].push(...(await latencies(client, route, count / 2)))
    }
    return { floor: times.floor.sort((a, b) => a - b), svc: times.svc.sort((a, b) => a - b), reply }
  } finally {
    await bare.stop()
  }
}

/** The report rows of a `versusBare` comparison, with the targets of the p50 ratio and of the daemon's own figures. */
export function latencyRows({ floor, svc }, targets) {
  return [
    ['floor: bare node:http, same bytes', fmt.spread(floor)],
    ['svc daemon', `${fmt.spread(svc)}${targets.svc ? `  (target ${targets.svc})` : ''}`],
    ['p50 ratio to the floor', fmt.ratio(percentile(svc, 50) / percentile(floor, 50), targets.ratio)],
  ]
}

/** Rounds per comparison; the median round is reported, which tames a noisy machine. */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)

/** Requests per second from `connections` concurrent keep-alive clients on a Unix socket. */
export async function throughput(socketPath, { method = 'GET', path, body, connections = 10, seconds }) {
  const result = await autocannon({
    url: `http://localhost${path}`,
    socketPath,
    method,
    body,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    connections,
    duration: seconds,
  })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return result.requests.average
}

/** Latency of one request at a time, in milliseconds with microsecond resolution. */
export async function latencies(client, { method = 'GET', path, body }, count) {
  const times = []
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint()
    const reply = await client.raw(method, path, body)
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
    if (reply.status !== 200) throw new Error(`${path}: HTTP ${reply.status}`)
  }
  return times.sort((a, b) => a - b)
}

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

export function median(values) {
  return percentile([...values].sort((a, b) => a - b), 50)
}

/** Milliseconds since `start`, a `process.hrtime.bigint()`. */
export function elapsedMs(start) {
  return Number(process.hrtime.bigint() - start) / 1e6
}

/**
 * Runs each of `measure`'s functions once a round, `count` measured rounds after a warm-up
 * round 0, the order flipping every round so none always follows another. Resolves per
 * name with what its function resolved with in the measured rounds.
 */
export async function alternateRuns(measure, count) {
  const names = Object.keys(measure)
  const results = Object.fromEntries(names.map((name) => [name, []]))
  for (let i = 0; i <= count; i++) {
    for (const name of i % 2 === 0 ? names : [...names].reverse()) {
      const result = await measure[name](i)
      if (i > 0) results[name].push(result)
    }
  }
  return results
}

/**
 * CPU seconds the process `pid` has used so far, all its live threads: the scheduler's
 * nanosecond run times, where utime and stime count in 10 ms ticks (too coarse for a
 * poll tick of a few milliseconds).
 */
export function cpuSeconds(pid) {
  let nanoseconds = 0
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0])
    } catch (error) {
      // A thread that ended since the listing took its time with it.
      if (error.code !== 'ENOENT') throw error
    }
  }
  return nanoseconds / 1e9
}

/**
 * Runs `load(target, seconds)` (resolving with requests per second) on each target in
 * alternating rounds, so drift hits all alike, and counts the CPU the processes
 * `target.pids` spent in each round: when one load generator cannot saturate a server,
 * CPU per request is what still tells servers apart. Resolves per target with `rps` (the
 * median round), `cpuUs` (server CPU per request over all rounds) and `roundCpuUs`.
 */
export async function alternate(targets, load) {
  const seconds = Math.max(1, SECONDS / ROUNDS)
  const rounds = Object.fromEntries(Object.keys(targets).map((name) => [name, []]))
  const used = (pids) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0)
  for (const target of Object.values(targets)) await load(target, 1) // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, target] of Object.entries(targets)) {
      const before = used(target.pids)
      const rps = await load(target, seconds)
      rounds[name].push({ rps, requests: rps * seconds, cpu: used(target.pids) - before })
    }
  }
  const sum = (list, field) => list.reduce((total, round) => total + round[field], 0)
  return Object.fromEntries(
    Object.entries(rounds).map(([name, list]) => [
      name,
      {
        rps: median(list.map((round) => round.rps)),
        cpuUs: (sum(list, 'cpu') * 1e6) / sum(list, 'requests'),
        roundCpuUs: list.map((round) => (round.cpu * 1e6) / round.requests),
      },
    ]),
  )
}

/**
 * How many more requests per server CPU-second `figure` serves than `base`: the median
 * of the rounds' ratios, as rounds side by side in time share the machine's state.
 */
export function capacityRatio(figure, base) {
  return median(figure.roundCpuUs.map((us, round) => base.roundCpuUs[round] / us))
}

/**
 * Measures `route` on each target (`{socketPath, client, pid}`) with `alternate`, then
 * p50 and p99 latency of sequential requests.
 */
export async function compare(targets, route) {
  const figures = await alternate(
    Object.fromEntries(Object.entries(targets).map(([name, target]) => [name, { ...target, pids: [target.pid] }])),
    (target, seconds) => throughput(target.socketPath, { ...route, seconds }),
  )
  for (const [name, target] of Object.entries(targets)) {
    const times = await latencies(target.client, route, 2000)
    Object.assign(figures[name], { p50: percentile(times, 50), p99: percentile(times, 99) })
  }
  return figures
}

/** Every figure this run printed, by figureKey, for --check and --record. */
export const printed = new Map()
let suite = ''

/** The suite whose figures `report` prints next. */
export function inSuite(name) {
  suite = name
}

/** Prints one section of figures: rows of [label, value] with units. */
export function report(title, rows) {
  for (const [label, value] of rows) printed.set(figureKey(suite, title, label), value)
  process.stdout.write(`\n${title}\n`)
  const width = Math.max(...rows.map(([label]) => label.length))
  for (const [label, value] of rows) process.stdout.write(`  ${label.padEnd(width)}  ${value}\n`)
}

export const fmt = {
  rps: (value) => `${Math.round(value).toLocaleString('en-US')} req/s`,
  ms: (value) => `${value.toFixed(3)} ms`,
  us: (value) => `${value.toFixed(1)} µs`,
  /** p50 and p99 of sorted milliseconds. */
  spread: (sorted) => `p50 ${fmt.ms(percentile(sorted, 50))}  p99 ${fmt.ms(percentile(sorted, 99))}`,
  /** Median and p90 of milliseconds in any order. */
  medianP90: (values) => {
    const sorted = [...values].sort((a, b) => a - b)
    return `median ${fmt.ms(median(sorted))}  p90 ${fmt.ms(percentile(sorted, 90))}`
  },
  ratio: (value, target) => `${value.toFixed(2)}  (target ${target})`,
  mib: (kib) => `${(kib / 1024).toFixed(1)} MiB`,
}

/** A scratch directory removed after `work`, whatever happens (an interrupt included). */
export async function withTempDir(work) {
  const dir = await mkdtemp('/tmp/svc-bench-')
  const remove = onInterrupt(() => rm(dir, { recursive: true, force: true }))
  try {
    return await work(dir)
  } finally {
    await remove()
  }
}
