// GET /v1/health and an empty Snapshot over the daemon's socket, against a bare
// node:http server on a Unix socket answering the same bytes, in the same run.
import { createClient } from '@svc/protocol'
import { compare, fmt, report, startBare, startDaemon } from './harness.mjs'

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
  const bare = await startBare(bareSocket, answers)
  try {
    const targets = {
      floor: { socketPath: bareSocket, client: createClient({ socketPath: bareSocket }) },
      svc: { socketPath: daemon.paths.socket, client: daemon.client },
    }
    for (const [name, route] of Object.entries(routes)) {
      const { floor, svc } = await compare(targets, route)
      report(`${route.method} ${route.path} over the Unix socket (${name})`, [
        ['bare node:http', `${fmt.rps(floor.rps)}  p50 ${fmt.ms(floor.p50)}  p99 ${fmt.ms(floor.p99)}`],
        ['svc daemon', `${fmt.rps(svc.rps)}  p50 ${fmt.ms(svc.p50)}  p99 ${fmt.ms(svc.p99)}`],
        ['throughput ratio', fmt.ratio(svc.rps / floor.rps, '>= 0.70')],
      ])
    }
  } finally {
    await bare.stop()
    await daemon.stop()
  }
}
