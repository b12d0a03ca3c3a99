import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { makeRepo, send, sendRaw, startDaemon, startSessionDaemon, tempHomes, type Target, type TestDaemon } from '@svc/test-kit'
import { startUpstream, type Seen, type Upstream } from './fixtures/upstream.js'

const homes = tempHomes()
let daemon: TestDaemon
let upstream: Upstream
let token: string
let tcp: Target & { host: string; port: number }
let previewPort: number
let sessionId: string
/** The web tab on the upstream, and its mirror path. */
let tabId: string
let mirror: string

function portOf(addr: string): number {
  return Number(addr.slice(addr.lastIndexOf(':') + 1))
}

async function createTab(body: Record<string, unknown>): Promise<string> {
  const reply = await daemon.post('/v1/CreateTab', { title: 'web', ...body })
  expect(reply.status, reply.text).toBe(200)
  return reply.json.data.id as string
}

beforeAll(async () => {
  upstream = await startUpstream()
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  daemon = await startSessionDaemon({
    home: join(dir, 'svc'),
    settings: { network: { listen_addr: '127.0.0.1:0', preview_listen_addr: '127.0.0.1:0' } },
  })
  const created = await daemon.client.call('CreateSession', { repo_path: repo, title: 'web' })
  sessionId = created.instance.id
  tabId = await createTab({ kind: 'web', url: `http://127.0.0.1:${upstream.port}` })
  mirror = `/v1/webtab/${sessionId}/${tabId}`
  token = (await readFile(daemon.paths.token, 'utf8')).trim()
  const listeners = (await daemon.client.call('Health')).listeners
  tcp = { host: '127.0.0.1', port: portOf(listeners.tcp_bound_addr) }
  previewPort = portOf(listeners.preview_bound_addr)
})
afterAll(async () => {
  await upstream.close()
  await homes.release()
})

const bearer = () => ({ authorization: `Bearer ${token}` })
const seen = (text: string) => JSON.parse(text) as Seen

describe('the same-origin mirror', () => {
  it('proxies any method with its body and query, on the Unix socket and the TCP listener', async () => {
    const viaSocket = await send(daemon.socket, 'GET', `${mirror}/echo?q=1`)
    expect(viaSocket.status).toBe(200)
    expect(seen(viaSocket.text)).toMatchObject({ method: 'GET', url: '/echo?q=1', headers: { host: `127.0.0.1:${upstream.port}` } })
    // A form post is not JSON: the proxy path is exempt from the 415 rule, the API is not.
    const form = await send(tcp, 'POST', `${mirror}/submit`, {
      body: 'a=1&b=2',
      headers: { ...bearer(), 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(form.status).toBe(200)
    expect(seen(form.text)).toMatchObject({ method: 'POST', url: '/submit', body: 'a=1&b=2' })
    const api = await send(tcp, 'POST', '/v1/Snapshot', { body: '{}', headers: { ...bearer(), 'content-type': 'text/plain' } })
    expect(api.status).toBe(415)
    const put = await send(daemon.socket, 'PUT', `${mirror}/x`, { body: Buffer.from([0, 1, 2, 255]), headers: { 'content-type': 'application/octet-stream' } })
    expect(seen(put.text)).toMatchObject({ method: 'PUT', body: Buffer.from([0, 1, 2, 255]).toString() })
  })

  it('keeps the daemon token, its cookies and the query token from the upstream', async () => {
    // A GET with a query token is a browser login (a redirect); a POST is proxied.
    const reply = await send(tcp, 'POST', `${mirror}/echo?keep=1&token=${token}&access_token=${token}`, {
      headers: { ...bearer(), cookie: `svc_login_${tcp.port}=secret; app=yes` },
    })
    expect(reply.status).toBe(200)
    const up = seen(reply.text)
    expect(up.url).toBe('/echo?keep=1')
    expect(up.headers.authorization).toBeUndefined()
    expect(up.headers.cookie).toBe('app=yes')
    expect(reply.text).not.toContain(token)
    // The same parameter with another value is the app's own (Vite's HMR token, say).
    expect(seen((await send(daemon.socket, 'GET', `${mirror}/echo?token=app-own`)).text).url).toBe('/echo?token=app-own')
    // Flags and encodings reach the upstream as sent.
    expect(seen((await send(daemon.socket, 'GET', `${mirror}/echo?import&a=b+c%20d&raw`)).text).url).toBe('/echo?import&a=b+c%20d&raw')
  })

  it('asks for the token on TCP and logs a browser in with a cookie', async () => {
    expect((await send(tcp, 'GET', `${mirror}/echo`)).status).toBe(401)
    const login = await send(tcp, 'GET', `${mirror}/page?token=${token}`)
    expect(login.status).toBe(307)
    expect(login.headers.location).toBe(`${mirror}/page`)
    const cookie = String(login.headers['set-cookie']).split(';')[0] as string
    const page = await send(tcp, 'GET', `${mirror}/echo`, { headers: { cookie } })
    expect(page.status).toBe(200)
    expect(seen(page.text).headers.cookie).toBeUndefined()
  })

  it('applies the Origin and Host rules, and rewrites an allowed Origin to the upstream', async () => {
    const foreign = await send(tcp, 'POST', `${mirror}/echo`, { body: 'x', headers: { ...bearer(), origin: 'http://evil.example', 'content-type': 'text/plain' } })
    expect(foreign.status).toBe(403)
    expect(foreign.json.error.daemon_rejected).toBe(true)
    const rebound = await send(tcp, 'GET', `${mirror}/echo`, { headers: { ...bearer(), host: `evil.example:${tcp.port}` } })
    expect(rebound.status).toBe(403)
    const own = `http://127.0.0.1:${tcp.port}`
    const allowed = await send(tcp, 'POST', `${mirror}/echo`, {
      body: 'x',
      headers: { ...bearer(), origin: own, referer: `${own}${mirror}/form?token=${token}&page=2`, 'content-type': 'text/plain' },
    })
    expect(allowed.status).toBe(200)
    expect(seen(allowed.text).headers).toMatchObject({ origin: `http://127.0.0.1:${upstream.port}`, referer: `http://127.0.0.1:${upstream.port}/form?page=2` })
  })

  it('answers the path rules: redirect to the slash, .. refused, unknown tabs 404, external 400', async () => {
    const bare = await send(daemon.socket, 'GET', `${mirror}?q=1`)
    expect(bare.status).toBe(301)
    expect(bare.headers.location).toBe(`${mirror}/?q=1`)
    for (const path of [`${mirror}/a/../../other`, `${mirror}/%2e%2e/x`, `${mirror}/.%2E/x`, `${mirror}/a\\..\\b`]) {
      const climbed = await sendRaw(daemon.socket, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`)
      expect(climbed.status, path).toBe(400)
      expect(climbed.json.error.message).toBe('invalid web tab path')
    }
    const unknownTab = await send(daemon.socket, 'GET', `/v1/webtab/${sessionId}/nope/`)
    expect(unknownTab.status).toBe(404)
    expect(unknownTab.json).toMatchObject({ data: null, error: { daemon_rejected: true } })
    expect((await send(daemon.socket, 'GET', `/v1/webtab/nope/${tabId}/`)).status).toBe(404)
    const external = await createTab({ kind: 'web', url: 'https://example.org' })
    const refused = await send(daemon.socket, 'GET', `/v1/webtab/${sessionId}/${external}/`)
    expect(refused.status).toBe(400)
    expect(refused.json.error.message).toBe('external URLs are framed directly, not proxied')
  })

  it('fits redirects and cookies under the prefix and drops framing refusals and CORS grants', async () => {
    expect((await send(daemon.socket, 'GET', `${mirror}/redirect`)).headers.location).toBe(`${mirror}/target?x=1`)
    expect((await send(daemon.socket, 'GET', `${mirror}/redirect-absolute`)).headers.location).toBe(`${mirror}/elsewhere`)
    expect((await send(daemon.socket, 'GET', `${mirror}/redirect-external`)).headers.location).toBe('https://example.org/x')
    const cookies = (await send(daemon.socket, 'GET', `${mirror}/cookies`)).headers['set-cookie']
    expect(cookies).toEqual([`a=1; Path=${mirror}/; HttpOnly`, `b=2; Path=${mirror}/`, `c=3; Path=${mirror}/deep`])
    const framed = await send(daemon.socket, 'GET', `${mirror}/framed`)
    expect(framed.text).toBe('framed')
    expect(framed.headers['x-frame-options']).toBeUndefined()
    expect(framed.headers['content-security-policy']).toBe("default-src 'self'")
    expect(framed.headers['access-control-allow-origin']).toBeUndefined()
    const chunked = await send(daemon.socket, 'GET', `${mirror}/chunked`)
    expect(chunked.text).toBe('one,two')
    expect(chunked.headers['transfer-encoding']).toBe('chunked')
  })

  it('joins WebSockets to the upstream, text and binary, with the daemon credentials stripped', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${tcp.port}${mirror}/hmr?x=1&token=${token}`, ['vite-hmr'], {
      headers: { cookie: `svc_login_${tcp.port}=secret; app=yes` },
    })
    const messages: Array<{ data: string; binary: boolean }> = []
    socket.on('message', (data: Buffer, binary) => messages.push({ data: data.toString(), binary }))
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    expect(socket.protocol).toBe('vite-hmr')
    socket.send('hello')
    socket.send(Buffer.from('bytes'), { binary: true })
    await expect.poll(() => messages.length).toBe(3)
    const hello = JSON.parse(messages[0]?.data ?? '{}')
    expect(hello).toMatchObject({ url: '/hmr?x=1', protocol: 'vite-hmr', headers: { cookie: 'app=yes' } })
    expect(messages.slice(1)).toEqual([{ data: 'hello', binary: false }, { data: 'bytes', binary: true }])
    socket.close()
  })

  it('refuses a WebSocket from a foreign origin before the upgrade', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${tcp.port}${mirror}/hmr`, { headers: { ...bearer(), origin: 'http://evil.example' } })
    const status = await new Promise((resolve) => socket.once('unexpected-response', (_request, response) => resolve(response.statusCode)))
    expect(status).toBe(403)
  })

  it('answers 502 with X-SVC-Webtab-Error when the upstream is down', async () => {
    const stopped = await startUpstream()
    const stoppedTab = await createTab({ kind: 'web', url: `http://127.0.0.1:${stopped.port}` })
    await stopped.close()
    const reply = await send(daemon.socket, 'GET', `/v1/webtab/${sessionId}/${stoppedTab}/`)
    expect(reply.status).toBe(502)
    expect(reply.headers['x-svc-webtab-error']).toBe('upstream-unreachable')
    expect(reply.json).toMatchObject({ data: null, error: { daemon_rejected: true } })
  })
})

describe('the preview listener', () => {
  const previewTarget = () => ({ host: '127.0.0.1', port: previewPort })
  /** A preview-auth answer on the Unix socket or (with the token) the TCP listener. */
  const previewAuth = (via: Target, query: string) => send(via, 'GET', `/v1/preview-auth${query}`, via === tcp ? { headers: bearer() } : {})
  const originOf = async (session: string, tab: string, via: Target = tcp) => {
    const reply = await previewAuth(via, `?session=${session}&tab=${tab}`)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.headers['cache-control']).toBe('no-store')
    expect(Object.keys(reply.json).sort()).toEqual(['data', 'error'])
    expect(reply.json.error).toBeNull()
    return reply.json.data.origin as string
  }

  it('reports itself in health and hands out per-tab origins in the envelope, behind the gate', async () => {
    const health = (await daemon.client.call('Health')).listeners
    expect(health).toMatchObject({ preview_configured: true, preview_bound: true })
    const origin = await originOf(sessionId, tabId)
    expect(origin).toMatch(new RegExp(`^http://svc[a-z2-7]{32}\\.localhost:${previewPort}$`))
    expect(await originOf(sessionId, tabId, daemon.socket)).toBe(origin)
    const other = await createTab({ kind: 'web', port: upstream.port })
    expect(await originOf(sessionId, other)).not.toBe(origin)
    // A tab the proxy does not serve has no origin.
    const external = await createTab({ kind: 'web', url: 'https://example.com/docs' })
    expect(await originOf(sessionId, external, daemon.socket)).toBe('')
    expect(await originOf(sessionId, external)).toBe('')
    expect((await send(tcp, 'GET', `/v1/preview-auth?session=${sessionId}&tab=${tabId}`)).status).toBe(401)
  })

  it('answers a missing session or tab with a 400 envelope, an unknown one with a 500, on both listeners', async () => {
    for (const via of [daemon.socket, tcp]) {
      for (const [query, message] of [
        ['', "session is required (the session's id)"],
        [`?tab=${tabId}`, "session is required (the session's id)"],
        [`?session=&tab=${tabId}`, "session is required (the session's id)"],
        [`?session=${sessionId}`, "tab is required (the tab's stable id)"],
        [`?session=${sessionId}&tab=${tabId}&tab=${tabId}`, 'tab must be given once'],
      ]) {
        const reply = await previewAuth(via, query as string)
        expect(reply.status, query).toBe(400)
        expect(reply.json, query).toEqual({ data: null, error: { message, daemon_rejected: true } })
      }
      const session = await previewAuth(via, `?session=nope&tab=${tabId}`)
      expect(session.status).toBe(500)
      expect(session.json).toEqual({ data: null, error: { message: 'no session with id nope', daemon_rejected: true } })
      const tab = await previewAuth(via, `?session=${sessionId}&tab=nope`)
      expect(tab.status).toBe(500)
      expect(tab.json).toEqual({ data: null, error: { message: 'session "web" has no tab with id nope (it may have been closed)', daemon_rejected: true } })
    }
  })

  it('serves the tab at the root of its origin, cookies partitioned, label kept from the upstream', async () => {
    const origin = await originOf(sessionId, tabId)
    const host = new URL(origin).host
    const echo = await send(previewTarget(), 'POST', '/submit?q=1', {
      body: 'a=1',
      headers: { host, origin, referer: `${origin}/form`, 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(echo.status).toBe(200)
    const up = seen(echo.text)
    expect(up).toMatchObject({ url: '/submit?q=1', body: 'a=1' })
    expect(up.headers.origin).toBe(`http://127.0.0.1:${upstream.port}`)
    expect(up.headers.referer).toBe(`http://127.0.0.1:${upstream.port}/form`)
    expect(echo.text).not.toContain(host.split('.')[0])
    const cookies = (await send(previewTarget(), 'GET', '/cookies', { headers: { host } })).headers['set-cookie']
    expect(cookies).toEqual([
      'a=1; Path=/; HttpOnly; Secure; Partitioned; SameSite=None',
      'b=2; Secure; Partitioned; SameSite=None',
      'c=3; Path=/deep; Secure; Partitioned; SameSite=None',
    ])
    const framed = await send(previewTarget(), 'GET', '/framed', { headers: { host, origin: 'http://elsewhere.example' } })
    expect(framed.headers['access-control-allow-origin']).toBeUndefined()
    expect(framed.headers['x-frame-options']).toBeUndefined()
    expect((await send(previewTarget(), 'GET', '/redirect-absolute', { headers: { host } })).headers.location).toBe(`${origin}/elsewhere`)
  })

  it('answers the probe page, and an expired page for unknown or closed tabs', async () => {
    const probe = await send(previewTarget(), 'GET', '/', { headers: { host: `svcprobe.localhost:${previewPort}` } })
    expect(probe.status).toBe(200)
    expect(probe.text).toContain("postMessage(\"svc-preview-origin-ok\", '*')")
    const unknown = await send(previewTarget(), 'GET', '/', { headers: { host: `svc${'a'.repeat(32)}.localhost:${previewPort}` } })
    expect(unknown.status).toBe(503)
    expect(unknown.text).toContain('Preview address expired')
    const closing = await createTab({ kind: 'web', port: upstream.port })
    const origin = await originOf(sessionId, closing)
    expect((await send(previewTarget(), 'GET', '/echo', { headers: { host: new URL(origin).host } })).status).toBe(200)
    await daemon.post('/v1/CloseTab', { title: 'web', tab_id: closing })
    const closed = await send(previewTarget(), 'GET', '/echo', { headers: { host: new URL(origin).host } })
    expect(closed.status).toBe(503)
    expect(closed.text).toContain('Preview address expired')
    // No API here: the listener answers only its own names, and never with an API route.
    for (const host of ['localhost', '127.0.0.1', 'example.org']) {
      const api = await send(previewTarget(), 'POST', '/v1/Snapshot', { body: '{}', headers: { host: `${host}:${previewPort}` } })
      expect(api.status, host).toBe(403)
    }
  })

  it('refuses paths that climb or name another host', async () => {
    const host = new URL(await originOf(sessionId, tabId)).host
    for (const target of ['/a/../../x', '/%2e%2e/x', 'http://example.org/x']) {
      const reply = await sendRaw(previewTarget(), `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
      expect(reply.status, target).toBe(400)
      expect(reply.text).toBe('invalid web tab path')
    }
  })

  it('joins WebSockets at the preview origin', async () => {
    const origin = await originOf(sessionId, tabId)
    const socket = new WebSocket(`ws://127.0.0.1:${previewPort}/live`, { headers: { host: new URL(origin).host, origin } })
    const first = await new Promise<string>((resolve, reject) => socket.once('message', (data: Buffer) => resolve(data.toString())).once('error', reject))
    expect(JSON.parse(first)).toMatchObject({ url: '/live', headers: { origin: `http://127.0.0.1:${upstream.port}` } })
    socket.close()
  })

  it('hands out "" while the listener is off, and still refuses unknown tabs', async () => {
    const setAddr = (value: string) => daemon.client.call('SetConfigValue', { key: 'network.preview_listen_addr', value })
    await setAddr('')
    try {
      expect((await daemon.client.call('Health')).listeners).toMatchObject({ preview_configured: false, preview_bound: false })
      for (const via of [daemon.socket, tcp]) {
        expect(await originOf(sessionId, tabId, via)).toBe('')
        expect((await previewAuth(via, `?session=${sessionId}&tab=nope`)).status).toBe(500)
      }
    } finally {
      await setAddr(`127.0.0.1:${previewPort}`)
    }
    expect(await originOf(sessionId, tabId)).toMatch(/^http:\/\/svc[a-z2-7]{32}\.localhost:\d+$/)
  })
})

describe('during warm-up', () => {
  it('answers the mirror and the preview origins with a 503 page that reloads itself', async () => {
    const dir = await homes.make()
    const gate = join(dir, 'gate')
    await writeFile(gate, '')
    const warming = await startDaemon({
      home: join(dir, 'svc'),
      env: { SVC_RESTORE_GATE: gate },
      waitReady: false,
      config: { network: { listen_addr: '', preview_listen_addr: '127.0.0.1:0' } },
    })
    try {
      const page = await send(warming.socket, 'GET', `/v1/webtab/${sessionId}/${tabId}/`)
      expect(page.status).toBe(503)
      expect(page.headers['content-type']).toMatch(/^text\/html/)
      expect(page.headers.refresh).toBe('1')
      expect(page.text).toContain('svc is starting')
      const port = portOf((await warming.client.call('Health')).listeners.preview_bound_addr)
      const preview = await send({ host: '127.0.0.1', port }, 'GET', '/', { headers: { host: `svc${'a'.repeat(32)}.localhost:${port}` } })
      expect(preview.status).toBe(503)
      expect(preview.text).toContain('svc is starting')
    } finally {
      await rm(gate)
    }
  })
})
