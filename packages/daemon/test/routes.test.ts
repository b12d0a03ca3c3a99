import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { CONFIG_ASSISTANT_PATH, EVENTS_PATH, routes, type RouteName } from '@svc/protocol'
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

/** A value of the field's type that the schema accepts, so only the field under test is wrong. */
const SAMPLES: Record<string, unknown> = { string: 'x', integer: 1, number: 1, boolean: true, object: {}, array: [] }

/** What the reads answer: a refused request must leave all of it as it was. */
async function state(): Promise<string[]> {
  const reads: RouteName[] = ['Snapshot', 'ListProjects', 'ListTasks', 'ListAccounts', 'GetConfig']
  return Promise.all(reads.map(async (name) => (await send({ socketPath: daemon.paths.socket }, 'POST', `/v1/${name}`, { body: '{}' })).text))
}

it('refuses a request without a required field, or with it empty, with the one generic envelope, changing nothing', async () => {
  const declaring = routes.filter((route) => route.required.length > 0)
  expect(declaring.map((route) => route.name)).toEqual(expect.arrayContaining(['CreateSession', 'SendPrompt', 'SetConfigValue', 'UpdateTask']))
  const before = await state()
  for (const route of declaring) {
    const properties = (route.request as { properties: Record<string, { type: string }> }).properties
    const complete = Object.fromEntries(route.required.map(({ field }) => [field, SAMPLES[properties[field]?.type ?? '']]))
    for (const need of route.required) {
      const { field, hint } = need
      const message = `${field} is required${hint ? ` (${hint})` : ''}`
      const { [field]: _dropped, ...without } = complete
      const bodies = [without, ...(properties[field]?.type === 'string' ? [{ ...without, [field]: '' }] : [])]
      for (const body of bodies) {
        const reply = await send({ socketPath: daemon.paths.socket }, 'POST', route.path, { body: JSON.stringify(body) })
        const refusal = `${route.name} ${JSON.stringify(body)}`
        if ('emptyAllowed' in need && body[field] === '') {
          expect(reply.json.error?.message ?? '', refusal).not.toContain('is required')
          continue
        }
        expect(reply.status, refusal).toBe(500)
        expect(reply.json, refusal).toEqual({ data: null, error: { message, daemon_rejected: true } })
      }
    }
  }
  expect(await state()).toEqual(before)
})
