import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import type { Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_BODY_BYTES, REMOVED_KEYS } from '@svc/protocol'
import { cleanup, send, sendRaw, startDaemon, type TestDaemon } from '@svc/test-kit'

let daemon: TestDaemon

beforeAll(async () => {
  daemon = await startDaemon()
})
afterAll(() => cleanup(daemon.home))

function expectRejected(reply: { status: number; json: any; headers: Record<string, unknown> }, status: number, message?: string) {
  expect(reply.status).toBe(status)
  expect(reply.headers['content-type']).toMatch(/^application\/json/)
  expect(Object.keys(reply.json).sort()).toEqual(['data', 'error'])
  expect(reply.json.data).toBeNull()
  expect(reply.json.error.daemon_rejected).toBe(true)
  if (message !== undefined) expect(reply.json.error.message).toBe(message)
}

describe('envelope and verbs', () => {
  it('answers GET /v1/health with the envelope and the health fields', async () => {
    const reply = await send(daemon.socket, 'GET', '/v1/health')
    expect(reply.status).toBe(200)
    expect(reply.headers['content-type']).toMatch(/^application\/json/)
    expect(reply.json.error).toBeNull()
    expect(reply.json.data).toMatchObject({
      ok: true,
      phase: 'ready',
      pid: daemon.process.pid,
      listeners: {
        http_unix_bound: true,
        tcp_configured: false,
        tcp_bound: false,
        tcp_bound_addr: '',
        preview_configured: false,
        preview_bound: false,
        preview_bound_addr: '',
      },
    })
    expect(reply.json.data.boot_id).toMatch(/^[0-9a-f]{16}$/)
    expect(reply.json.data.version).toMatch(/^\d+\.\d+\.\d+/)
  })

  it.each(['POST', 'PUT', 'DELETE', 'HEAD', 'PATCH'])('refuses %s on /v1/health with 405', async (method) => {
    const reply = await send(daemon.socket, method, '/v1/health')
    expect(reply.status).toBe(405)
    expect(reply.headers.allow).toBe('GET')
    if (method !== 'HEAD') expectRejected(reply, 405, `method ${method} not allowed; use GET`)
  })

  it.each(['GET', 'PUT', 'DELETE'])('refuses %s on an RPC route with 405', async (method) => {
    expectRejected(await send(daemon.socket, method, '/v1/Snapshot'), 405, `method ${method} not allowed; use POST`)
  })

  it.each(['/v1/events', '/v1/sessions/any/stream', '/v1/sessions/any/stream-info', '/v1/auth-info'])(
    'refuses POST on the surface beside the catalog %s with 405',
    async (path) => {
      const reply = await send(daemon.socket, 'POST', path, { body: '{}' })
      expect(reply.headers.allow).toBe('GET')
      expectRejected(reply, 405, 'method POST not allowed; use GET')
    },
  )

  it('answers unknown and removed routes with 404', async () => {
    expectRejected(await daemon.post('/v1/Nope', {}), 404, 'unknown route "/v1/Nope"')
    expectRejected(await daemon.post('/v1/SetPRInfo', {}), 404, 'unknown route "/v1/SetPRInfo"')
    expectRejected(await daemon.post('/v1/RefreshPRInfo', {}), 404, 'unknown route "/v1/RefreshPRInfo"')
    expectRejected(await daemon.post('/v1/snapshot', {}), 404, 'unknown route "/v1/snapshot"')
    expectRejected(await send(daemon.socket, 'GET', '/v1/debug/pprof/heap'), 404, 'unknown route "/v1/debug/pprof/heap"')
  })

  it('reports handler failures as 500 with daemon_rejected', async () => {
    expectRejected(await daemon.post('/v1/Snapshot', { limit: 0 }), 500, 'limit must be a positive integer, got 0')
    expectRejected(await daemon.post('/v1/Snapshot', { limit: -3 }), 500)
    expectRejected(await daemon.post('/v1/Snapshot', { statuses: ['running', 'sleeping'] }), 500)
    expect((await daemon.post('/v1/Snapshot', { statuses: ['sleeping'] })).json.error.message).toContain('"sleeping"')
    expectRejected(await daemon.post('/v1/Snapshot', { created_after: 'yesterday' }), 500)
  })
})

describe('requests HTTP cannot parse', () => {
  it('answers a garbage request line with the envelope and closes the connection', async () => {
    const reply = await sendRaw(daemon.socket, 'GARBAGE\r\n\r\n')
    expectRejected(reply, 400)
    expect(reply.json.error.message).toMatch(/^cannot read the HTTP request: /)
    expect(reply.headers.connection).toBe('close')
  })
})

describe('request decoding', () => {
  it.each([
    ['no body', undefined],
    ['an empty body', ''],
    ['a whitespace body', ' \n\t '],
    ['null', 'null'],
    ['an empty object', '{}'],
  ])('treats %s as no fields', async (_label, body) => {
    const reply = await send(daemon.socket, 'POST', '/v1/Snapshot', { body })
    expect(reply.status).toBe(200)
    expect(reply.json).toEqual({ data: { instances: [], boot_id: expect.any(String) }, error: null })
  })

  it('refuses a body that is not JSON by its content type with 415, before any handler runs', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const reply = await send(daemon.socket, 'POST', '/v1/RegisterProject', { body: '{"path":"/tmp"}', headers: { 'content-type': type } })
      expectRejected(reply, 415, `unsupported content type "${type}": POST bodies must be application/json`)
    }
    const charset = await send(daemon.socket, 'POST', '/v1/Snapshot', {
      body: '{"live":true}',
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    })
    expect(charset.status).toBe(200)
    expect((await daemon.client.call('ListProjects')).projects).toEqual([])
  })

  it('refuses two JSON values, broken JSON and non-objects with 400', async () => {
    for (const body of ['{} {}', '{}{"live":true}', '{"live":', '[]', '"text"', '42']) {
      const reply = await send(daemon.socket, 'POST', '/v1/Snapshot', { body })
      expectRejected(reply, 400)
      expect(reply.json.error.message).toMatch(/^malformed JSON request body: /)
    }
  })

  it('refuses a wrong JSON type as a 400 decode error, in both modes', async () => {
    for (const headers of [{}, { 'X-SVC-Client-Version': '9.9.9' }] as Array<Record<string, string>>) {
      for (const body of [{ limit: '5' }, { limit: 1.5 }, { live: 'yes' }, { statuses: 'running' }, { statuses: [1] }]) {
        const reply = await daemon.post('/v1/Snapshot', body, headers)
        expectRejected(reply, 400)
        expect(reply.json.error.message).toMatch(/^malformed JSON request body: json: field "/)
      }
    }
  })

  it('refuses an unknown field with the exact message when strict', async () => {
    expectRejected(
      await daemon.post('/v1/Snapshot', { repo_idd: 'abc' }),
      400,
      'malformed JSON request body: json: unknown field "repo_idd"',
    )
    expectRejected(
      await daemon.post('/v1/SetConfigValue', { key: 'default_program', value: 'codex', extra: true }),
      400,
      'malformed JSON request body: json: unknown field "extra"',
    )
  })

  it('ignores unknown fields when the client-version header is present', async () => {
    const lenient = await daemon.post('/v1/Snapshot', { repo_idd: 'abc', live: true }, { 'X-SVC-Client-Version': '2.0.0' })
    expect(lenient.status).toBe(200)
    expect(lenient.json.data.instances).toEqual([])
    const emptyHeader = await daemon.post('/v1/Snapshot', { repo_idd: 'abc' }, { 'X-SVC-Client-Version': '' })
    expectRejected(emptyHeader, 400)
  })

  it('refuses the removed auto_yes field with guidance in both modes', async () => {
    for (const headers of [{}, { 'X-SVC-Client-Version': '1.0.0' }] as Array<Record<string, string>>) {
      const reply = await daemon.post('/v1/Snapshot', { auto_yes: true }, headers)
      expectRejected(reply, 400)
      expect(reply.json.error.message).toContain('program_overrides')
    }
  })

  it('refuses auto_yes at any depth of the body, in both modes', async () => {
    const bodies: Array<[string, unknown]> = [
      ['/v1/AddTask', { task: { auto_yes: true } }],
      ['/v1/AddTask', { task: { name: 'n', audit: [{ auto_yes: true }] } }],
      ['/v1/UpdateTask', { id: 'x', update: { auto_yes: false } }],
    ]
    for (const headers of [{}, { 'X-SVC-Client-Version': '1.0.0' }] as Array<Record<string, string>>) {
      for (const [path, body] of bodies) {
        expectRejected(await daemon.post(path, body, headers), 400, REMOVED_KEYS.auto_yes)
      }
    }
  })
})

describe('the 16 MiB body cap', () => {
  // SetConfigValue writes config.json, so an unchanged file proves the handler never ran.
  function padded(value: string, size: number): string {
    const body = JSON.stringify({ key: 'default_program', value })
    return body + ' '.repeat(size - Buffer.byteLength(body))
  }

  it('accepts a body of exactly 16777216 bytes', async () => {
    const body = padded('codex', MAX_BODY_BYTES)
    expect(Buffer.byteLength(body)).toBe(16_777_216)
    const reply = await send(daemon.socket, 'POST', '/v1/SetConfigValue', { body })
    expect(reply.status).toBe(200)
    expect(JSON.parse(await readFile(daemon.paths.config, 'utf8')).default_program).toBe('codex')
  })

  it('refuses one byte more with 413 before any handler runs', async () => {
    const before = await readFile(daemon.paths.config, 'utf8')
    const reply = await send(daemon.socket, 'POST', '/v1/SetConfigValue', { body: padded('aider', MAX_BODY_BYTES + 1) })
    expectRejected(reply, 413)
    expect(reply.json.error.message).toBe('request body exceeds 16777216-byte limit: Content-Length is 16777217 bytes')
    expect(await readFile(daemon.paths.config, 'utf8')).toBe(before)
  })

  it('refuses by Content-Length alone, before any byte of the body is read', async () => {
    // Only the headers are sent: a daemon that read (and buffered) the body first would never answer.
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({
        socketPath: daemon.paths.socket,
        method: 'POST',
        path: '/v1/SetConfigValue',
        headers: { 'content-type': 'application/json', 'content-length': MAX_BODY_BYTES + 1 },
      }, (res) => {
        let text = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
        res.on('end', () => (resolve({ status: res.statusCode ?? 0, text }), req.destroy()))
      })
      req.on('error', reject)
      req.flushHeaders()
    })
    const reply = await answer
    expect(reply.status).toBe(413)
    expect(JSON.parse(reply.text).error.message).toBe('request body exceeds 16777216-byte limit: Content-Length is 16777217 bytes')
  })

  it('answers 413 to a client that uploads the whole body, and keeps the connection usable', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const post = (body: string) =>
      new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
        const req = request({ socketPath: daemon.paths.socket, method: 'POST', path: '/v1/SetConfigValue', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume()
          res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }))
        })
        req.on('error', reject)
        req.end(body)
      })
    const big = await post(padded('aider', MAX_BODY_BYTES + 1))
    const next = await post(JSON.stringify({ key: 'default_program', value: 'codex' }))
    agent.destroy()
    expect([big.status, next.status]).toEqual([413, 200])
    expect(next.socket).toBe(big.socket)
  })

  it('closes a WebSocket whose message is over the cap (1009), from its frame header', async () => {
    // Only the header of a frame declaring one byte over the cap is sent: the close answers it.
    const socket = await new Promise<Socket>((resolve, reject) => {
      const key = randomBytes(16).toString('base64')
      const headers = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': key }
      request({ socketPath: daemon.paths.socket, path: '/v1/events', headers })
        .on('upgrade', (_res, upgraded) => resolve(upgraded))
        .on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)))
        .on('error', reject)
        .end()
    })
    const header = Buffer.alloc(14)
    header[0] = 0x82 // FIN, binary
    header[1] = 0x80 | 127 // masked, 64-bit length
    header.writeBigUInt64BE(BigInt(MAX_BODY_BYTES + 1), 2)
    let read = Buffer.alloc(0)
    const close = new Promise<Buffer>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        read = Buffer.concat([read, chunk])
        // Unmasked server frames: the hello (and any event) first, then the close (opcode 8).
        for (let at = 0; at + 4 <= read.length; ) {
          const short = (read[at + 1] as number) & 0x7f
          const [start, length] = short === 126 ? [at + 4, read.readUInt16BE(at + 2)] : [at + 2, short]
          if (((read[at] as number) & 0x0f) === 8) return resolve(read.subarray(start, start + 2))
          at = start + length
        }
      })
    })
    socket.write(header)
    expect((await close).readUInt16BE(0)).toBe(1009)
    socket.destroy()
  })

  it('refuses an oversized chunked body with 413 too', async () => {
    const before = await readFile(daemon.paths.config, 'utf8')
    const reply = await send(daemon.socket, 'POST', '/v1/SetConfigValue', {
      body: padded('aider', MAX_BODY_BYTES + 1),
      headers: { 'transfer-encoding': 'chunked' },
    })
    expectRejected(reply, 413)
    expect(reply.json.error.message).toMatch(/^request body exceeds 16777216-byte limit: /)
    expect(await readFile(daemon.paths.config, 'utf8')).toBe(before)
  })
})
