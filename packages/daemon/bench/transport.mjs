// GET /v1/health and an empty Snapshot over the daemon's socket, against a bare Fastify
// on a Unix socket answering the same bytes (the floor the daemon's own hooks and
// handlers are measured against), in the same run; a bare node:http server answering
// them too shows how much is the framework's own, and the bare Fastify served from inside
// a running daemon's process how much is the process's.
import { createClient } from '@svc/protocol'
import { capacityRatio, compare, fmt, report, startBare, startDaemon } from './harness.mjs'

export async function run() {
  const daemon = await startDaemon()
  const routes = {
    health: { method: 'GET', path: '/v1/health' },
    snapshot: { method: 'POST', path: '/v1/Snapshot', body: '{}' },
  }
  const answers = {}
  for (const [name, route] of Object.entries(routes)) {
    const reply = await daemon.client.raw(route.method, route.path, route.body)
    answers[`${route.method} ${route.path}`] = reply.text
    if (reply.status !== 200) throw new Error(`${name}: HTTP ${reply.status}`)
  }
  const bareSocket = `${daemon.home}/bare.sock`
  const fastifySocket = `${daemon.home}/fastify.sock`
  const bare = await startBare(bareSocket, answers)
  const fastify = await startBare(fastifySocket, answers, 'fastify')
  const hostedSocket = `${daemon.home}/hosted.sock`
  const hosted = await startBare(hostedSocket, answers, 'fastify-in-daemon')
  try {
    const target = (socketPath) => ({ socketPath, client: createClient({ socketPath }) })
    const targets = {
      floor: { ...target(bareSocket), pid: bare.pid },
      fastify: { ...target(fastifySocket), pid: fastify.pid },
      hosted: { ...target(hostedSocket), pid: hosted.pid },
      svc: { socketPath: daemon.paths.socket, client: daemon.client, pid: daemon.pid },
    }
    for (const [name, route] of Object.entries(routes)) {
      const figures = await compare(targets, route)
      const row = ({ rps, cpuUs, p50, p99 }) => `${fmt.rps(rps)}  ${fmt.us(cpuUs)} server CPU/req  p50 ${fmt.ms(p50)}  p99 ${fmt.ms(p99)}`
      // Requests per server CPU-second: a load generator that saturates first caps req/s alike.
      const capacity = (target, base) => capacityRatio(figures[target], figures[base])
      report(`${route.method} ${route.path} over the Unix socket (${name})`, [
        ['bare node:http', row(figures.floor)],
        ['bare Fastify (the framework alone)', row(figures.fastify)],
        ["bare Fastify inside a daemon's process", row(figures.hosted)],
        ['svc daemon', row(figures.svc)],
        ['throughput ratio to bare Fastify', fmt.ratio(figures.svc.rps / figures.fastify.rps, '>= 0.90')],
        ['throughput per server CPU, ratio to bare Fastify', fmt.ratio(capacity('svc', 'fastify'), '>= 0.90')],
        ['throughput per server CPU, ratio to node:http', capacity('svc', 'floor').toFixed(2)],
        ['bare Fastify to node:http, per server CPU', capacity('fastify', 'floor').toFixed(2)],
        ["bare Fastify inside a daemon's process to bare Fastify, per server CPU", capacity('hosted', 'fastify').toFixed(2)],
        ["svc daemon to bare Fastify inside a daemon's process, per server CPU", capacity('svc', 'hosted').toFixed(2)],
        ["svc's own server CPU per request above bare Fastify", fmt.us(figures.svc.cpuUs - figures.fastify.cpuUs)],
      ])
    }
  } finally {
    await hosted.stop()
    await fastify.stop()
    await bare.stop()
    await daemon.stop()
  }
}
