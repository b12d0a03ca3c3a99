import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createClient, DaemonError } from '@svc/protocol'
import { logEntries, send, sendRaw, startDaemon, tempHomes, waitFor, type TestDaemon } from '@svc/test-kit'

const homes = tempHomes()
afterEach(homes.release)

async function daemonWith(network: Record<string, unknown>): Promise<TestDaemon> {
  const daemon = await startDaemon({ config: { network: { listen_addr: '127.0.0.1:0', ...network } } })
  homes.keep(daemon.home)
  return daemon
}

async function tcpTarget(daemon: TestDaemon) {
  const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
  const port = Number(addr.slice(addr.lastIndexOf(':') + 1))
  return { host: '127.0.0.1', port }
}

async function token(daemon: TestDaemon): Promise<string> {
  return (await readFile(daemon.paths.token, 'utf8')).trim()
}

function setConfig(daemon: TestDaemon, key: string, value: string) {
  return daemon.post('/v1/SetConfigValue', { key, value })
}

async function occupiedPort(): Promise<{ server: Server; port: number }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as { port: number }).port }
}

describe('TCP listener', () => {
  it('serves the same API on network.listen_addr and reports it in health', async () => {
    const daemon = await daemonWith({})
    const health = (await daemon.client.call('Health')).listeners
    expect(health).toMatchObject({ tcp_configured: true, tcp_bound: true })
    expect(health.tcp_bound_addr).toMatch(/^127\.0\.0\.1:\d+$/)
    const reply = await send(await tcpTarget(daemon), 'POST', '/v1/Snapshot', {
      body: '{}',
      headers: { authorization: `Bearer ${await token(daemon)}` },
    })
    expect(reply.status).toBe(200)
    expect(reply.json.data.instances).toEqual([])
  })

  it('is off when network.listen_addr is empty', async () => {
    const daemon = await daemonWith({ listen_addr: '' })
    expect((await daemon.client.call('Health')).listeners).toMatchObject({
      tcp_configured: false,
      tcp_bound: false,
      tcp_bound_addr: '',
    })
  })

  it('answers a request it cannot parse with the envelope, and closes the connection', async () => {
    const daemon = await daemonWith({})
    const reply = await sendRaw(await tcpTarget(daemon), 'GARBAGE\r\n\r\n')
    expect(reply.status).toBe(400)
    expect(reply.headers['content-type']).toMatch(/^application\/json/)
    expect(reply.json).toEqual({
      data: null,
      error: { message: expect.stringMatching(/^cannot read the HTTP request: /), daemon_rejected: true },
    })
  })

  it('binds the preview listener on preview_listen_addr and rebinds it in place', async () => {
    const daemon = await daemonWith({ preview_listen_addr: '127.0.0.1:0' })
    const first = (await daemon.client.call('Health')).listeners
    expect(first).toMatchObject({ preview_configured: true, preview_bound: true })
    const { server, port } = await occupiedPort()
    try {
      // A taken port: the old address keeps serving, and the reason is reported.
      expect((await setConfig(daemon, 'network.preview_listen_addr', `127.0.0.1:${port}`)).status).toBe(500)
      const kept = (await daemon.client.call('Health')).listeners
      expect(kept).toMatchObject({ preview_bound: true, preview_bound_addr: first.preview_bound_addr })
      expect(kept.preview_error).toContain('EADDRINUSE')
    } finally {
      server.close()
    }
    const probe = (addr: string) =>
      send({ host: '127.0.0.1', port: Number(addr.slice(addr.lastIndexOf(':') + 1)) }, 'GET', '/', { headers: { host: 'svcprobe.localhost' } })
    expect((await probe(first.preview_bound_addr)).status).toBe(200)
    // The same address as the one serving would change nothing: another spelling moves it.
    expect((await setConfig(daemon, 'network.preview_listen_addr', 'localhost:0')).status).toBe(200)
    const moved = (await daemon.client.call('Health')).listeners
    expect(moved.preview_bound_addr).not.toBe(first.preview_bound_addr)
    expect((await probe(moved.preview_bound_addr)).status).toBe(200)
    await expect(probe(first.preview_bound_addr)).rejects.toThrow(/ECONNREFUSED/)
    expect((await setConfig(daemon, 'network.preview_listen_addr', '')).status).toBe(200)
    expect((await daemon.client.call('Health')).listeners).toMatchObject({ preview_configured: false, preview_bound: false, preview_bound_addr: '' })
  })

  it('keeps serving the Unix socket when the configured port is taken at start', async () => {
    const { server, port } = await occupiedPort()
    try {
      const daemon = await daemonWith({ listen_addr: `127.0.0.1:${port}` })
      const health = (await daemon.client.call('Health')).listeners
      expect(health).toMatchObject({ tcp_configured: true, tcp_bound: false, http_unix_bound: true })
      expect(health.tcp_error).toContain('EADDRINUSE')
    } finally {
      server.close()
    }
  })
})

describe('bearer token', () => {
  it('is required by default, loopback peers included; the Unix socket never asks', async () => {
    const daemon = await daemonWith({})
    const tcp = await tcpTarget(daemon)
    const denied = await send(tcp, 'GET', '/v1/health')
    expect(denied.status).toBe(401)
    expect(denied.json.data).toBeNull()
    expect(denied.json.error.daemon_rejected).toBe(true)
    expect(denied.json.error.message).toContain(daemon.paths.token)

    const secret = await token(daemon)
    expect((await send(tcp, 'GET', '/v1/health', { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200)
    expect((await send(tcp, 'POST', `/v1/Snapshot?access_token=${secret}`, { body: '{}' })).status).toBe(200)
    expect((await send(tcp, 'GET', '/v1/health', { headers: { authorization: `Bearer ${secret}x` } })).status).toBe(401)
    expect((await send(tcp, 'GET', '/v1/health', { headers: { authorization: 'Bearer short' } })).status).toBe(401)
    expect((await send(tcp, 'GET', '/v1/health?access_token=nope')).status).toBe(401)
    expect((await send(daemon.socket, 'GET', '/v1/health')).status).toBe(200)
  })

  it('exempts loopback peers on a loopback bind only while require_loopback_token is false', async () => {
    const daemon = await daemonWith({ require_loopback_token: false })
    const tcp = await tcpTarget(daemon)
    expect((await send(tcp, 'GET', '/v1/health')).status).toBe(200)
    expect((await setConfig(daemon, 'network.require_loopback_token', 'true')).status).toBe(200)
    expect((await send(tcp, 'GET', '/v1/health')).status).toBe(401)
  })

  it('is read per request, without a rebind', async () => {
    const daemon = await daemonWith({ require_token: false })
    const tcp = await tcpTarget(daemon)
    expect((await send(tcp, 'GET', '/v1/health')).status).toBe(200)
    await setConfig(daemon, 'require_token', 'true')
    expect((await send(tcp, 'GET', '/v1/health')).status).toBe(401)
    expect(await tcpTarget(daemon)).toEqual(tcp)
    await setConfig(daemon, 'require_token', 'false')
    expect((await send(tcp, 'GET', '/v1/health')).status).toBe(200)
  })

  it('lets the typed client call over TCP with the token', async () => {
    const daemon = await daemonWith({})
    const { port } = await tcpTarget(daemon)
    const url = `http://127.0.0.1:${port}`
    const client = createClient({ url, token: await token(daemon) })
    expect((await client.call('Snapshot', { live: true })).instances).toEqual([])
    const denied = createClient({ url }).call('Health')
    await expect(denied).rejects.toBeInstanceOf(DaemonError)
    await expect(denied).rejects.toMatchObject({ status: 401, daemonRejected: true })
  })

  it('gives loopback peers no exemption on a non-loopback bind', async () => {
    const daemon = await daemonWith({ listen_addr: '0.0.0.0:0', require_loopback_token: false })
    const tcp = await tcpTarget(daemon)
    expect((await send(tcp, 'GET', '/v1/health')).status).toBe(401)
    const secret = await token(daemon)
    expect((await send(tcp, 'GET', '/v1/health', { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200)
  })

  it('warns at start, in daemon.log and GetConfig, when the control API is reachable from the network without a token', async () => {
    const daemon = await daemonWith({ listen_addr: '0.0.0.0:0', require_token: false })
    const warning = 'network.listen_addr 0.0.0.0:0 makes the control API reachable from the network without a token'
    const logged = await waitFor(async () => (await logEntries(daemon)).find((entry) => String(entry.msg).includes(warning)))
    expect(logged.level).toBe(40)
    expect((await daemon.client.call('GetConfig')).warnings).toContainEqual(expect.stringContaining(warning))
    expect((await daemon.client.call('Health')).listeners.tcp_bound_addr).toMatch(/^0\.0\.0\.0:\d+$/)
  })

  it('warns when the control API is reachable from the network without a token, and still binds', async () => {
    const daemon = await daemonWith({ require_token: false })
    const reply = await setConfig(daemon, 'network.listen_addr', '0.0.0.0:0')
    expect(reply.status).toBe(200)
    expect(reply.json.data.warnings[0]).toContain('reachable from the network without a token')
    expect((await daemon.client.call('Health')).listeners.tcp_bound_addr).toMatch(/^0\.0\.0\.0:\d+$/)
    const quiet = await setConfig(daemon, 'network.require_token', 'true')
    expect(quiet.json.data.warnings).toBeUndefined()
  })
})

describe('CORS', () => {
  it('echoes only exact allowed origins, read per request', async () => {
    const daemon = await daemonWith({ cors_allowed_origins: ['http://localhost:5173'], require_token: false })
    const tcp = await tcpTarget(daemon)
    const allowed = await send(tcp, 'POST', '/v1/Snapshot', { body: '{}', headers: { origin: 'http://localhost:5173' } })
    expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:5173')
    expect(allowed.headers.vary).toMatch(/Origin/)
    const other = await send(tcp, 'POST', '/v1/Snapshot', { body: '{}', headers: { origin: 'http://localhost:5174' } })
    expect(other.status).toBe(403)
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
    expect(other.headers.vary).toMatch(/Origin/)

    await setConfig(daemon, 'network.cors_allowed_origins', 'http://localhost:5174')
    const now = await send(tcp, 'POST', '/v1/Snapshot', { body: '{}', headers: { origin: 'http://localhost:5174' } })
    expect(now.headers['access-control-allow-origin']).toBe('http://localhost:5174')
    const before = await send(tcp, 'POST', '/v1/Snapshot', { body: '{}', headers: { origin: 'http://localhost:5173' } })
    expect(before.status).toBe(403)
    expect(before.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('answers an OPTIONS preflight with 204, without a token', async () => {
    const daemon = await daemonWith({ cors_allowed_origins: ['https://ui.example.com'] })
    const preflight = await send(await tcpTarget(daemon), 'OPTIONS', '/v1/Snapshot', {
      headers: {
        origin: 'https://ui.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-origin']).toBe('https://ui.example.com')
    expect(preflight.headers['access-control-allow-methods']).toContain('POST')
    expect(preflight.headers['access-control-allow-headers']).toContain('authorization')
  })

  it('answers a preflight from an origin it does not allow with 204, echoing no origin', async () => {
    const daemon = await daemonWith({ cors_allowed_origins: ['https://ui.example.com'] })
    const preflight = await send(await tcpTarget(daemon), 'OPTIONS', '/v1/Snapshot', {
      headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
    expect(preflight.headers.vary).toMatch(/Origin/)
  })

  it('answers OPTIONS that is not a preflight with 405', async () => {
    const daemon = await daemonWith({ cors_allowed_origins: ['https://ui.example.com'] })
    const tcp = await tcpTarget(daemon)
    for (const headers of [{}, { 'access-control-request-method': 'POST' }] as Array<Record<string, string>>) {
      const reply = await send(tcp, 'OPTIONS', '/v1/Snapshot', { headers })
      expect(reply.status).toBe(405)
      expect(reply.json.error).toEqual({ message: 'method OPTIONS not allowed; use POST', daemon_rejected: true })
    }
  })
})

describe('live rebind', () => {
  it('binds the new address, then closes the old one', async () => {
    const daemon = await daemonWith({ require_token: false })
    const old = await tcpTarget(daemon)
    const { server, port } = await occupiedPort()
    server.close()
    const reply = await setConfig(daemon, 'network.listen_addr', `127.0.0.1:${port}`)
    expect(reply.status).toBe(200)
    expect((await daemon.client.call('Health')).listeners.tcp_bound_addr).toBe(`127.0.0.1:${port}`)
    expect((await send({ host: '127.0.0.1', port }, 'GET', '/v1/health')).status).toBe(200)
    await expect(send(old, 'GET', '/v1/health')).rejects.toThrow(/ECONNREFUSED/)

    await setConfig(daemon, 'network.listen_addr', '')
    expect((await daemon.client.call('Health')).listeners).toMatchObject({ tcp_configured: false, tcp_bound: false })
    await expect(send({ host: '127.0.0.1', port }, 'GET', '/v1/health')).rejects.toThrow(/ECONNREFUSED/)
  })

  it('keeps the old address serving when the new bind fails, and reports a committed mutation', async () => {
    const daemon = await daemonWith({ require_token: false })
    const old = await tcpTarget(daemon)
    const { server, port } = await occupiedPort()
    try {
      const reply = await setConfig(daemon, 'network.listen_addr', `127.0.0.1:${port}`)
      expect(reply.status).toBe(500)
      expect(reply.json.data).toBeNull()
      expect(reply.json.error.code).toBe('mutation_committed')
      expect(reply.json.error).not.toHaveProperty('daemon_rejected')
      expect(reply.json.error.message).toContain('EADDRINUSE')
      expect(reply.json.error.message).toContain(`still serving on 127.0.0.1:${old.port}`)

      const saved = JSON.parse(await readFile(daemon.paths.config, 'utf8'))
      expect(saved.network.listen_addr).toBe(`127.0.0.1:${port}`)
      expect((await send(old, 'GET', '/v1/health')).status).toBe(200)
      const health = (await daemon.client.call('Health')).listeners
      expect(health.tcp_bound_addr).toBe(`127.0.0.1:${old.port}`)
      expect(health.tcp_error).toContain('EADDRINUSE')
    } finally {
      server.close()
    }
    // Once the port is free, writing the same address again retries the bind.
    expect((await setConfig(daemon, 'network.listen_addr', `127.0.0.1:${port}`)).status).toBe(200)
    expect((await daemon.client.call('Health')).listeners.tcp_bound_addr).toBe(`127.0.0.1:${port}`)
  })
})
