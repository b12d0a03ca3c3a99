// Concurrent task writes: `clients` clients, each making `mutations` adds, updates and
// removes of its own tasks, one at a time, against a store already holding others.
// Every acknowledged write is remembered, so what the daemon serves (or what the store
// holds after a SIGKILL) can be checked for lost writes. Shared by the concurrency test
// (scaled down) and `pnpm bench` (full size).
import { createClient } from '@svc/protocol'
import { generator } from './fuzz-kit.mjs'

/** tasks.json holding `count` enabled yearly cron tasks, as a store that has lived a while. */
export function storedTasks(count) {
  const tasks = Array.from({ length: count }, (_, n) => ({
    id: `stored-${n}`,
    name: `stored ${n}`,
    prompt: 'stored',
    cron_expr: `${n % 60} ${n % 24} ${1 + (n % 28)} ${1 + (n % 12)} *`,
    enabled: true,
    created_at: '2026-01-01T00:00:00.000Z',
  }))
  return `${JSON.stringify({ store_generation: count, tasks, runs: [] })}\n`
}

/** One client's next mutation of its own tasks: mostly adds, then updates, then removes. */
function nextMutation(random, client, live, serial) {
  const ids = [...live.keys()]
  const pick = random.next()
  if (ids.length === 0 || pick < 0.5) {
    const id = `c${client}-${serial}`
    return { route: 'AddTask', id, name: `v${serial}`, body: { task: { id, name: `v${serial}`, prompt: 'write', enabled: false } } }
  }
  const id = random.pick(ids)
  if (pick < 0.8) return { route: 'UpdateTask', id, name: `v${serial}`, body: { id, update: { name: `v${serial}` } } }
  return { route: 'RemoveTask', id, name: null, body: { id } }
}

/**
 * Runs the clients against the daemon on `socketPath`. Resolves with the throughput,
 * every latency (sorted, ms), the failed requests, and `expected`: each task id a
 * client touched, with the name its last acknowledged write left (null: removed).
 */
export async function taskWrites({ socketPath, clients, mutations, seed = 1 }) {
  const latencies = []
  const failures = []
  const expected = new Map()
  const client = async (index) => {
    const random = generator(seed * 1000 + index)
    const connection = createClient({ socketPath })
    const live = new Map()
    for (let serial = 0; serial < mutations; serial++) {
      const mutation = nextMutation(random, index, live, serial)
      const began = performance.now()
      const reply = await connection.raw('POST', `/v1/${mutation.route}`, JSON.stringify(mutation.body))
      latencies.push(performance.now() - began)
      if (reply.status !== 200) {
        failures.push(`${mutation.route} ${mutation.id}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`)
        continue
      }
      if (mutation.name === null) live.delete(mutation.id)
      else live.set(mutation.id, mutation.name)
      expected.set(mutation.id, mutation.name)
    }
  }
  const began = performance.now()
  await Promise.all(Array.from({ length: clients }, (_, index) => client(index)))
  const seconds = (performance.now() - began) / 1000
  return { rps: (clients * mutations) / seconds, seconds, latencies: latencies.sort((a, b) => a - b), failures, expected }
}

/** Each acknowledged write that `tasks` (what is served or stored) does not show. */
export function lostWrites(expected, tasks) {
  const names = new Map(tasks.map((task) => [task.id, task.name]))
  const lost = []
  for (const [id, name] of expected) {
    if (name === null && names.has(id)) lost.push(`${id}: removed, still there`)
    if (name !== null && names.get(id) !== name) lost.push(`${id}: ${name} expected, ${names.get(id) ?? 'missing'} found`)
  }
  return lost
}
