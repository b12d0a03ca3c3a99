import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { makeRepo, runCli, send, startSessionDaemon, tempHomes, type TestDaemon } from '@svc/test-kit'
import { runInTerminal } from './terminal.js'

const homes = tempHomes()
let daemon: TestDaemon
let upstream: Server
let port: number

beforeAll(async () => {
  upstream = createServer((request, response) => response.end(`dev server at ${request.url}`))
  await new Promise<void>((resolve) => upstream.listen(0, 'localhost', resolve))
  port = (upstream.address() as AddressInfo).port
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  daemon = await startSessionDaemon({
    home: join(dir, 'svc'),
    settings: { network: { listen_addr: '127.0.0.1:0', preview_listen_addr: '127.0.0.1:0' } },
  })
  await daemon.client.call('CreateSession', { repo_path: repo, title: 'app' })
})
afterAll(async () => {
  upstream.close()
  await homes.release()
})

it('svc tabs create --port prints the URLs that open the dev server', async () => {
  // A person at a terminal reads lines; the URL to open first is the preview origin.
  const { code, out } = await runInTerminal(['tabs', 'create', 'app', '--port', String(port)], { SERVICE_HOME: daemon.home })
  expect(code, out).toBe(0)
  const lines = out.replaceAll('\r', '')
  const preview = /^open: (http:\/\/svc[a-z2-7]{32}\.localhost:\d+\/)$/m.exec(lines)?.[1]
  const mirror = /^or: (http:\/\/127\.0\.0\.1:\d+\/v1\/webtab\/[0-9a-f]+\/[0-9a-f]+\/\?token=\S+)$/m.exec(lines)?.[1]
  expect(preview, out).toBeDefined()
  expect(mirror, out).toBeDefined()

  // What a browser does: the preview name resolves to loopback and is sent as Host.
  const at = new URL(preview as string)
  const page = await send({ host: '127.0.0.1', port: Number(at.port) }, 'GET', '/', { headers: { host: at.host } })
  expect(page.text).toBe('dev server at /')

  // The mirror URL logs in (a cookie for the token) and lands on the tab.
  const login = new URL(mirror as string)
  const tcp = { host: '127.0.0.1', port: Number(login.port) }
  const redirected = await send(tcp, 'GET', `${login.pathname}${login.search}`)
  expect(redirected.status).toBe(307)
  const cookie = String(redirected.headers['set-cookie']).split(';')[0] as string
  const mirrored = await send(tcp, 'GET', redirected.headers.location as string, { headers: { cookie } })
  expect(mirrored.text).toBe('dev server at /')

  const json = JSON.parse((await runCli(['tabs', 'create', 'app', '--port', String(port)], { SERVICE_HOME: daemon.home })).stdout)
  expect(json).toMatchObject({ name: 'web-2', urls: { preview: expect.stringMatching(/^http:\/\/svc/), mirror: expect.stringContaining('token=') } })
})
