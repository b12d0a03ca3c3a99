import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENT_VERSION_HEADER, MAX_BODY_DEPTH, QUOTED_PREFIX } from '@svc/protocol'
import { cleanup, send, sendRaw, startDaemon, type Reply, type Target, type TestDaemon } from '@svc/test-kit'

let daemon: TestDaemon
let tcp: Target
let token: string

beforeAll(async () => {
  daemon = await startDaemon({ config: { network: { listen_addr: '127.0.0.1:0' } } })
  const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
  tcp = { host: '127.0.0.1', port: Number(addr.slice(addr.lastIndexOf(':') + 1)) }
  token = (await readFile(daemon.paths.token, 'utf8')).trim()
})
afterAll(() => cleanup(daemon.home))

const LENIENT = { [CLIENT_VERSION_HEADER]: '1.0.0' }

function expectRejected(reply: Reply, status: number, message?: string | RegExp): void {
  expect(reply.status, reply.text.slice(0, 300)).toBe(status)
  expect(reply.headers['content-type']).toMatch(/^application\/json/)
  expect(reply.json).toEqual({ data: null, error: { message: expect.any(String), daemon_rejected: true } })
  if (typeof message === 'string') expect(reply.json.error.message).toBe(message)
  if (message instanceof RegExp) expect(reply.json.error.message).toMatch(message)
}

/** Names every object has through its prototype; none of them is a request field. */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'hasOwnProperty', 'valueOf', 'toString', 'isPrototypeOf', '__defineGetter__']

/** `{"<key>": …}` placed at the top level and inside each nested object AddTask knows. */
function addTaskWith(key: string, depth: 'top' | 'task' | 'expect-like'): string {
  const task = { name: 'n', prompt: 'p', cron_expr: '0 0 1 1 *', project_path: '/tmp' }
  const json = (value: object) => JSON.stringify(value).slice(0, -1)
  const extra = `,"${key}":{"polluted":true}}`
  if (depth === 'top') return `{"task":${JSON.stringify(task)}${extra}`
  if (depth === 'task') return `{"task":${json(task)}${extra}}`
  return `{"id":"x","update":${json({ name: 'n' })}${extra},"expect":${json({ enforce: false })}${extra}}`
}

describe('keys that name Object.prototype members', () => {
  const cases = PROTOTYPE_KEYS.flatMap((key) =>
    (['top', 'task', 'expect-like'] as const).map((depth) => ({
      key,
      depth,
      path: depth === 'expect-like' ? '/v1/UpdateTask' : '/v1/AddTask',
      body: addTaskWith(key, depth),
    })),
  )

  it.each(cases)('strict: refuses $key ($depth) as an unknown field', async ({ key, path, body }) => {
    expectRejected(await send(daemon.socket, 'POST', path, { body }), 400, `malformed JSON request body: json: unknown field "${key}"`)
  })

  it.each(PROTOTYPE_KEYS)('lenient: ignores %s on ListTasks', async (key) => {
    const reply = await send(daemon.socket, 'POST', '/v1/ListTasks', { body: `{"${key}":1,"x":{"${key}":{"${key}":2}}}`, headers: LENIENT })
    expect(reply.status, reply.text).toBe(200)
    expect(reply.json).toEqual({ data: { tasks: [] }, error: null })
  })

  it('lenient: a prototype key inside a task is dropped, and nothing reaches a prototype', async () => {
    const reply = await send(daemon.socket, 'POST', '/v1/AddTask', { body: addTaskWith('__proto__', 'task'), headers: LENIENT })
    // The key is gone: what is left is an ordinary AddTask, judged on its own fields.
    expect(reply.json.error?.message ?? '').not.toMatch(/proto|object Object|native code/)
    const listed = await send(daemon.socket, 'POST', '/v1/ListTasks', { body: '{}' })
    for (const task of listed.json.data.tasks) expect(Object.keys(task)).not.toContain('polluted')
    await send(daemon.socket, 'POST', '/v1/RemoveTask', { body: JSON.stringify({ id: reply.json.data?.task?.id ?? 'none' }) })
  })

  it('refuses config keys that name prototype members, and writes nothing', async () => {
    const before = await daemon.client.call('GetConfig')
    for (const key of ['constructor', '__proto__', 'program_overrides.__proto__.polluted', 'program_overrides.constructor.x']) {
      const reply = await daemon.post('/v1/SetConfigValue', { key, value: 'yes' })
      expect(reply.json.error?.message ?? '', key).not.toMatch(/native code|object Object/)
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(await daemon.client.call('GetConfig')).toEqual(before)
  })
})

describe('nesting', () => {
  const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`

  it.each([MAX_BODY_DEPTH + 1, 5_000, 10_000, 100_000])('refuses a body %i levels deep with 400, in both modes', async (levels) => {
    const message = `malformed JSON request body: json: request body nests deeper than ${MAX_BODY_DEPTH} levels`
    for (const headers of [{}, LENIENT]) {
      expectRejected(await send(daemon.socket, 'POST', '/v1/ListTasks', { body: nested(levels), headers }), 400, message)
    }
    const arrays = `{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`
    expectRejected(await send(daemon.socket, 'POST', '/v1/Snapshot', { body: arrays }), 400, message)
  })

  it('judges a body within the limit on its fields', async () => {
    expectRejected(await send(daemon.socket, 'POST', '/v1/ListTasks', { body: nested(MAX_BODY_DEPTH - 1) }), 400, /unknown field "a"/)
  })
})

describe('answers HTTP itself cannot route', () => {
  it.each(['/v1/ListTasks%ZZ', '/v1/%', '/%E0%A4%A', '/v1/ListTasks%ZZ?x=1'])('answers %s with the unknown-route envelope', async (path) => {
    expectRejected(await send(daemon.socket, 'POST', path, { body: '{}' }), 404, `unknown route "${path.split('?')[0]}"`)
    expectRejected(await send(tcp, 'POST', path, { body: '{}' }), 404)
  })

  // Paths the router does not know, in bytes a file server refuses to read: still 404, 403 is the network-safety rules' alone.
  it.each([
    '/v1/a%5Cb',
    '/v1/Snapshot%5C',
    '/v1/a\\b',
    '/v1/%2e%2e/health',
    '/v1/x/../health',
    '/v1/./health',
    '/v1//health',
    '/v1/%00',
    '/v1/%C0%AE%C0%AE/x',
    '/v1/%FF',
    '/v1/%E2%80%AE..%2F',
    '/index.html%5C',
    '/assets/../index.html',
  ])('answers %s with the unknown-route envelope on both listeners, whatever the verb', async (path) => {
    const headers = { authorization: `Bearer ${token}` }
    for (const method of ['GET', 'HEAD', 'POST']) {
      const body = method === 'POST' ? '{}' : undefined
      const viaSocket = await send(daemon.socket, method, path, { body })
      const viaTcp = await send(tcp, method, path, { body, headers })
      for (const reply of [viaSocket, viaTcp]) {
        if (method === 'HEAD') expect(reply.status, path).toBe(404)
        else expectRejected(reply, 404, `unknown route "${path}"`)
      }
    }
  })

  it('answers a header block over the limit with 431 on both listeners', async () => {
    const request = `POST /v1/ListTasks HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`
    for (const target of [daemon.socket, tcp]) {
      const reply = await sendRaw(target, request)
      expectRejected(reply, 431, /^cannot read the HTTP request: /)
    }
  })
})

describe('error messages quote requests with a bound', () => {
  const huge = 'a'.repeat(1_700_000)
  const cutQuote = `"${'a'.repeat(QUOTED_PREFIX)}…" (1700000 characters)`

  it.each([
    ['/v1/KillSession', { title: huge }, `no session titled ${cutQuote}`],
    ['/v1/Snapshot', { created_after: huge }, `got ${cutQuote}`],
    ['/v1/SetConfigValue', { key: huge, value: '1' }, `unknown config key ${cutQuote}`],
    ['/v1/Snapshot', { statuses: [huge] }, `unknown status ${cutQuote}`],
    ['/v1/UpdateTask', { id: huge, update: { name: 'x' } }, `task ${'a'.repeat(QUOTED_PREFIX)}… (1700000 characters) not found`],
  ])('%s', async (path, body, expected) => {
    const reply = await daemon.post(path, body)
    expectRejected(reply, reply.status)
    expect(reply.json.error.message).toContain(expected)
    expect(reply.json.error.message.length).toBeLessThan(1_000)
  })

  it('cuts an unknown field name and an unknown route path', async () => {
    const field = await send(daemon.socket, 'POST', '/v1/ListTasks', { body: `{"${huge}":1}` })
    expectRejected(field, 400, `malformed JSON request body: json: unknown field ${cutQuote}`)
    const path = `/v1/${'b'.repeat(10_000)}`
    const route = await send(daemon.socket, 'POST', path, { body: '{}' })
    expectRejected(route, 404, `unknown route "${path.slice(0, QUOTED_PREFIX)}…" (${path.length} characters)`)
  })
})
