import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { CONFIG_ASSISTANT_PATH, EVENTS_PATH, routes } from '@svc/protocol'
import { startDaemon, type RunningDaemon } from '@svc/daemon'
import { cleanup, runCli, send, tempDir } from '@svc/test-kit'

let home: string
let daemon: RunningDaemon

beforeAll(async () => {
  home = await tempDir()
  // No TCP listener: the default address may be taken, or wanted by another test.
  await writeFile(join(home, 'config.json'), JSON.stringify({ network: { listen_addr: '' } }))
  daemon = await startDaemon({ SERVICE_HOME: home })
  await daemon.restored
})
afterAll(async () => {
  await daemon.stop()
  await cleanup(home)
})

/** Served beside the catalog: the WebSocket planes (the login terminal and the config assistant's among them), stream-info, the config assistant, profiling (404 while off), preview-auth and the web-tab proxy. */
const BESIDE_THE_CATALOG = [
  `GET ${EVENTS_PATH}`,
  'GET /v1/sessions/:id/stream',
  'GET /v1/sessions/:id/stream-info',
  'GET /v1/accounts/:agent/:name/login-stream',
  `POST ${CONFIG_ASSISTANT_PATH}`,
  `DELETE ${CONFIG_ASSISTANT_PATH}`,
  `GET ${CONFIG_ASSISTANT_PATH}/stream`,
  'GET /v1/debug/pprof/:profile',
  // The web UI's files (the test build runs `vite build` first).
  'GET /*',
  'HEAD /*',
  'GET /v1/preview-auth',
  ...['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'].flatMap((verb) => [`${verb} /v1/webtab/:session/:tab`, `${verb} /v1/webtab/:session/:tab/*`]),
]

it('serves exactly the route table, plus the surfaces beside the catalog', () => {
  const served = daemon.app.served.map(({ method, url }) => `${method} ${url}`).sort()
  const table = routes.map(({ method, path }) => `${method} ${path}`)
  expect(served).toEqual([...table, ...BESIDE_THE_CATALOG].sort())
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

it('is what `svc routes` prints: every public route the daemon serves, and only those', async () => {
  const result = await runCli(['routes', '--json'], { SERVICE_HOME: home })
  expect(result.code, result.stderr).toBe(0)
  const printed = JSON.parse(result.stdout) as { socket: string; routes: Array<{ method: string; path: string }> }
  expect(printed.socket).toBe(daemon.paths.socket)
  const publicRoutes = new Set(routes.filter((route) => route.public).map(({ method, path }) => `${method} ${path}`))
  const served = daemon.app.served.map(({ method, url }) => `${method} ${url}`).filter((route) => publicRoutes.has(route))
  expect(printed.routes.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(served.sort())
})
