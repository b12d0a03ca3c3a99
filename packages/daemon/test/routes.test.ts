import { afterAll, beforeAll, expect, it } from 'vitest'
import { routes } from '@svc/protocol'
import { startDaemon, type RunningDaemon } from '@svc/daemon'
import { cleanup, send, tempDir } from './harness.js'

let home: string
let daemon: RunningDaemon

beforeAll(async () => {
  home = await tempDir()
  daemon = await startDaemon({ SERVICE_HOME: home })
  await daemon.restored
})
afterAll(async () => {
  await daemon.stop()
  await cleanup(home)
})

it('serves exactly the route table, plus the CORS preflight', () => {
  const served = daemon.app.served.map(({ method, url }) => `${method} ${url}`).sort()
  const table = routes.map(({ method, path }) => `${method} ${path}`)
  expect(served).toEqual([...table, 'OPTIONS *'].sort())
})

it('answers every table route over the socket', async () => {
  for (const route of routes) {
    const reply = await send({ socketPath: daemon.paths.socket }, route.method, route.path, {
      body: route.method === 'POST' ? '{}' : undefined,
    })
    expect(reply.status, route.name).not.toBe(404)
    expect(reply.status, route.name).not.toBe(405)
  }
})
