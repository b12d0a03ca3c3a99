import { chmod, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { logShowing, runCli, send, sendRaw, startDaemon, tempHomes, waitFor, type Reply, type Target, type TestDaemon } from '@svc/test-kit'
import { makeRepo } from '@svc/test-kit'

const homes = tempHomes()
afterEach(homes.release)

interface Fixture {
  daemon: TestDaemon
  tcp: { host: string; port: number }
  token: string
  /** A git repository RegisterProject would accept. */
  repo: string
}

async function fixture(network: Record<string, unknown> = {}): Promise<Fixture> {
  const daemon = await startDaemon({ config: { network: { listen_addr: '127.0.0.1:0', ...network } } })
  homes.keep(daemon.home)
  const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
  const tcp = { host: '127.0.0.1', port: Number(addr.slice(addr.lastIndexOf(':') + 1)) }
  const token = (await readFile(daemon.paths.token, 'utf8')).trim()
  return { daemon, tcp, token, repo: await makeRepo(await homes.make()) }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

function register(target: Target, repo: string, headers: Record<string, string>): Promise<Reply> {
  return send(target, 'POST', '/v1/RegisterProject', { body: JSON.stringify({ path: repo }), headers })
}

/** A refusal in the envelope that left the registered projects as they were. */
async function expectRefusedUnchanged(daemon: TestDaemon, reply: Reply, status: number, message: RegExp) {
  expect(reply.status).toBe(status)
  expect(reply.json).toEqual({ data: null, error: { message: expect.stringMatching(message), daemon_rejected: true } })
  expect((await daemon.client.call('ListProjects')).projects).toEqual([])
}

/** Opens a WebSocket and reports the HTTP status it was refused with, or "open". */
function upgrade(url: string, headers: Record<string, string>): Promise<number | 'open'> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    socket.on('open', () => {
      socket.close()
      resolve('open')
    })
    socket.on('unexpected-response', (_request, response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    socket.on('error', reject)
  })
}

describe('JSON-only POST bodies', () => {
  it('refuses other content types with 415 on both listeners, changing nothing', async () => {
    const { daemon, tcp, token, repo } = await fixture()
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const overTcp = await register(tcp, repo, { ...bearer(token), 'content-type': type })
      await expectRefusedUnchanged(daemon, overTcp, 415, /^unsupported content type .*must be application\/json$/)
      await expectRefusedUnchanged(daemon, await register(daemon.socket, repo, { 'content-type': type }), 415, /application\/json/)
    }
    const untyped = await sendRaw(
      daemon.socket,
      `POST /v1/RegisterProject HTTP/1.1\r\nHost: x\r\nContent-Length: ${JSON.stringify({ path: repo }).length}\r\nConnection: close\r\n\r\n${JSON.stringify({ path: repo })}`,
    )
    await expectRefusedUnchanged(daemon, untyped, 415, /needs "Content-Type: application\/json"/)
  })

  it('accepts JSON with a charset, and an empty body without a content type', async () => {
    const { daemon, tcp, token, repo } = await fixture()
    expect((await register(tcp, repo, { ...bearer(token), 'content-type': 'application/json; charset=utf-8' })).status).toBe(200)
    expect((await daemon.client.call('ListProjects')).projects).toHaveLength(1)
    expect((await send(tcp, 'POST', '/v1/Snapshot', { headers: bearer(token) })).status).toBe(200)
  })
})

describe('the Origin rule', () => {
  it('refuses a foreign origin with 403 on both listeners, changing nothing, token or not', async () => {
    const { daemon, tcp, token, repo } = await fixture()
    const evil = { origin: 'https://evil.example' }
    await expectRefusedUnchanged(daemon, await register(tcp, repo, { ...bearer(token), ...evil }), 403, /origin "https:\/\/evil\.example" is not allowed/)
    await expectRefusedUnchanged(daemon, await register(daemon.socket, repo, evil), 403, /is not allowed/)
    // Same host, another port: another origin.
    const otherPort = await register(tcp, repo, { ...bearer(token), origin: `http://127.0.0.1:${tcp.port + 1}` })
    await expectRefusedUnchanged(daemon, otherPort, 403, /is not allowed/)
  })

  it("allows the listener's own origin, as the Host header names it, and listed origins", async () => {
    const { daemon, tcp, token, repo } = await fixture({ cors_allowed_origins: ['http://localhost:5173'] })
    const own = await register(tcp, repo, { ...bearer(token), origin: `http://127.0.0.1:${tcp.port}` })
    expect(own.status).toBe(200)
    const byName = await send(tcp, 'POST', '/v1/ListProjects', {
      body: '{}',
      headers: { ...bearer(token), host: `localhost:${tcp.port}`, origin: `http://localhost:${tcp.port}` },
    })
    expect(byName.json.data.projects).toHaveLength(1)
    const listed = await send(tcp, 'POST', '/v1/ListProjects', { body: '{}', headers: { ...bearer(token), origin: 'http://localhost:5173' } })
    expect(listed.status).toBe(200)
    expect(listed.headers['access-control-allow-origin']).toBe('http://localhost:5173')
    expect((await daemon.client.call('ListProjects')).projects).toHaveLength(1)
  })

  it('refuses a WebSocket upgrade from a foreign origin before the upgrade', async () => {
    const { tcp, token } = await fixture({ require_token: false })
    const url = `ws://127.0.0.1:${tcp.port}/v1/events?access_token=${token}`
    expect(await upgrade(url, { origin: 'https://evil.example' })).toBe(403)
    // The same request from the listener's own origin passes the gate and opens the event feed.
    expect(await upgrade(url, { origin: `http://127.0.0.1:${tcp.port}` })).toBe('open')
    // So for every plane, the login terminal's and the config assistant's included: refused before anything is looked up.
    for (const path of ['/v1/sessions/any/stream', '/v1/accounts/claude/work/login-stream', '/v1/config-assistant/stream']) {
      expect(await upgrade(`ws://127.0.0.1:${tcp.port}${path}?access_token=${token}`, { origin: 'https://evil.example' }), path).toBe(403)
    }
  })
})

describe('the Host rule on a loopback bind', () => {
  it('refuses a name that is not loopback (DNS rebinding) unless listed in network.allowed_hosts', async () => {
    const { daemon, tcp, token, repo } = await fixture()
    const rebound = await register(tcp, repo, { ...bearer(token), host: `evil.test:${tcp.port}` })
    await expectRefusedUnchanged(daemon, rebound, 403, /^host "evil\.test:\d+" is not allowed on a loopback listener/)
    for (const host of ['localhost', 'ui.localhost', '127.0.0.2', '[::1]']) {
      const reply = await send(tcp, 'GET', '/v1/health', { headers: { ...bearer(token), host: `${host}:${tcp.port}` } })
      expect(reply.status, host).toBe(200)
    }
    expect((await daemon.post('/v1/SetConfigValue', { key: 'network.allowed_hosts', value: 'devbox.internal' })).status).toBe(200)
    const listed = await send(tcp, 'GET', '/v1/health', { headers: { ...bearer(token), host: `devbox.internal:${tcp.port}` } })
    expect(listed.status).toBe(200)
    expect((await sendRaw(tcp, 'GET /v1/health HTTP/1.0\r\n\r\n')).status).toBe(403)
  })

  it('is not applied to the Unix socket or a non-loopback bind', async () => {
    const { daemon, tcp, token } = await fixture({ listen_addr: '0.0.0.0:0' })
    expect((await send(daemon.socket, 'GET', '/v1/health', { headers: { host: 'evil.test' } })).status).toBe(200)
    const reply = await send(tcp, 'GET', '/v1/health', { headers: { ...bearer(token), host: `evil.test:${tcp.port}` } })
    expect(reply.status).toBe(200)
  })
})

describe('the token on TCP', () => {
  it('refuses a request without it with 401, changing nothing', async () => {
    const { daemon, tcp, repo } = await fixture()
    await expectRefusedUnchanged(daemon, await register(tcp, repo, {}), 401, /requires the token/)
    await expectRefusedUnchanged(daemon, await register(tcp, repo, bearer('wrong')), 401, /requires the token/)
  })

  it('keeps working without a token when require_token is set false on purpose, and says so in `svc config get`', async () => {
    const { daemon, tcp, repo } = await fixture({ require_token: false })
    expect((await register(tcp, repo, {})).status).toBe(200)
    const shown = await runCli(['config', 'get', 'network.require_token'], { SERVICE_HOME: daemon.home })
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stderr).toMatch(/^warning: network\.require_token is false: every local user and process can drive the control API/m)
    expect(JSON.parse(shown.stdout)).toEqual({ key: 'network.require_token', value: 'false' })
  })
})

describe('cookie login', () => {
  it('trades a valid ?token= on a GET for an HttpOnly, SameSite=Strict cookie kept for 30 days and a 307 to the URL without it', async () => {
    const { daemon, tcp, token, repo } = await fixture()
    for (const name of ['token', 'access_token']) {
      const login = await send(tcp, 'GET', `/?${name}=${token}&tab=2`)
      expect(login.status).toBe(307)
      expect(login.headers.location).toBe('/?tab=2')
      const [setCookie] = login.headers['set-cookie'] ?? []
      // Kept across browser restarts (an installed app reopened), for 30 days.
      expect(setCookie).toMatch(new RegExp(`^svc_login_${tcp.port}=[^;]+; Max-Age=2592000; Path=/; HttpOnly; SameSite=Strict$`))
      expect(setCookie).not.toContain(token)
      const cookie = setCookie!.split(';')[0]!
      expect((await send(tcp, 'GET', '/v1/health', { headers: { cookie } })).status).toBe(200)
      expect((await register(tcp, repo, { cookie })).status).toBe(200)
    }
    expect((await daemon.client.call('ListProjects')).projects).toHaveLength(1)
    expect((await send(tcp, 'GET', `//evil.example/x?token=${token}`)).headers.location).toBe('/x')
    expect((await send(tcp, 'GET', `/?token=${token}x`)).status).toBe(401)
    expect((await send(tcp, 'GET', '/v1/health', { headers: { cookie: `svc_login_${tcp.port}=forged` } })).status).toBe(401)
    expect((await send(tcp, 'GET', `/v1/health`, { headers: { cookie: `svc_login_${tcp.port}=${token}` } })).status).toBe(401)
  })
})

describe('svc web', () => {
  it('prints the login URL of the TCP listener, which logs a browser in', async () => {
    const { daemon, tcp, token } = await fixture()
    const printed = await runCli(['web', '--json'], { SERVICE_HOME: daemon.home })
    expect(printed.code, printed.stderr).toBe(0)
    const { url } = JSON.parse(printed.stdout) as { url: string }
    expect(url).toBe(`http://127.0.0.1:${tcp.port}/?token=${token}`)
    const login = await send(tcp, 'GET', url.slice(url.indexOf('/', 'http://'.length)))
    expect([login.status, login.headers.location]).toEqual([307, '/'])
  })

  it('with --open, hands the same URL to the desktop browser opener', async () => {
    const { daemon, tcp, token } = await fixture()
    const bin = await homes.make()
    const opened = join(bin, 'opened')
    // Written beside it, then renamed: the test never reads half a URL.
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > ${opened}.part && mv ${opened}.part ${opened}\n`)
    await chmod(join(bin, 'xdg-open'), 0o755)
    const printed = await runCli(['web', '--open', '--json'], { SERVICE_HOME: daemon.home, PATH: `${bin}:${process.env.PATH}` })
    expect(printed.code, printed.stderr).toBe(0)
    const url = `http://127.0.0.1:${tcp.port}/?token=${token}`
    expect((JSON.parse(printed.stdout) as { url: string }).url).toBe(url)
    expect(await waitFor(async () => (await readFile(opened, 'utf8').catch(() => '')).trim() || undefined)).toBe(url)
  })

  it('says so when the TCP listener is off', async () => {
    const { daemon } = await fixture({ listen_addr: '' })
    const printed = await runCli(['web'], { SERVICE_HOME: daemon.home })
    expect(printed.code).toBe(1)
    expect(printed.stderr).toContain('the TCP listener is off; turn it on with: svc config set network.listen_addr')
  })
})

describe('GET /v1/auth-info', () => {
  it('answers without a token, and still obeys the Origin and Host rules', async () => {
    const { daemon, tcp } = await fixture()
    const info = await send(tcp, 'GET', '/v1/auth-info')
    expect(info.status).toBe(200)
    expect(info.json).toEqual({ data: { token_required: true, cookie_login: true }, error: null })
    expect((await send(daemon.socket, 'GET', '/v1/auth-info')).json.data).toEqual({ token_required: false, cookie_login: true })
    expect((await send(tcp, 'GET', '/v1/auth-info', { headers: { origin: 'https://evil.example' } })).status).toBe(403)
    expect((await send(tcp, 'GET', '/v1/auth-info', { headers: { host: `evil.test:${tcp.port}` } })).status).toBe(403)
    await daemon.post('/v1/SetConfigValue', { key: 'network.require_loopback_token', value: 'false' })
    expect((await send(tcp, 'GET', '/v1/auth-info')).json.data.token_required).toBe(false)
  })
})

describe('daemon.log', () => {
  it('records refusals and never the token, whichever way it was carried', async () => {
    const { daemon, tcp, token, repo } = await fixture()
    const login = await send(tcp, 'GET', `/?token=${token}`)
    const cookie = login.headers['set-cookie']![0]!.split(';')[0]!
    const evil = { origin: 'https://evil.example' }
    await send(tcp, 'GET', `/v1/health?access_token=${token}`, { headers: evil })
    await register(tcp, repo, { ...bearer(token), ...evil })
    await register(tcp, repo, { cookie, 'content-type': 'text/plain' })
    await send(tcp, 'POST', `/v1/Nope?token=${token}`, { body: '{}', headers: { cookie, host: `evil.test:${tcp.port}` } })
    const log = await logShowing(daemon, '"refused":415')
    expect(log).toContain('"refused":403')
    expect(log).toContain('access_token=[redacted]')
    expect(log).not.toContain(token)
    expect(log).not.toContain(cookie.split('=')[1])
  })
})
