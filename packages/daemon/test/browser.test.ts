import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext } from 'playwright-core'
import { browserPresent, launchChromium, logEntries, makeRepo, startDaemon, tempHomes, waitFor, type TestDaemon } from '@svc/test-kit'

/**
 * A real browser against the daemon's weakest allowed posture (no token at all on a
 * loopback bind): a page from another local origin, and a DNS-rebound name, try what any
 * web page can do without a CORS preflight, and nothing may change.
 */
const present = browserPresent('browser.test.ts')

const homes = tempHomes()
let daemon: TestDaemon
let daemonPort: number
let repo: string
/** The file the attack's CreateSession would create. */
let pwned: string
/** The attack's RegisterProject body, which the daemon would accept from its own origin. */
let register: string
let attacker: Server
let attackerOrigin: string
let browser: BrowserContext

/**
 * The attacker's page: no-cors fetches, auto-submitted forms and a WebSocket, each
 * reporting when it has settled. A text/plain form sends `name=value`; splitting a JSON
 * text at a `=` inside a string makes that body valid JSON for the route.
 */
function attackPage(target: string, register: string, create: string): string {
  const form = (id: string, route: string, json: string, enctype: string) => {
    const at = json.indexOf('=')
    return `
    <iframe name="${id}" id="${id}-frame"></iframe>
    <form id="${id}" method="POST" action="${target}/v1/${route}" enctype="${enctype}" target="${id}">
      <input name='${json.slice(0, at)}' value='${json.slice(at + 1)}'>
    </form>`
  }
  const forms = [
    form('plain-register', 'RegisterProject', register, 'text/plain'),
    form('plain-create', 'CreateSession', create, 'text/plain'),
    form('urlencoded-register', 'RegisterProject', register, 'application/x-www-form-urlencoded'),
  ]
  return `<!doctype html><title>attack</title><body>
${forms.join('\n')}
<script>
  const settled = []
  const done = (what) => { settled.push(what); if (settled.length === ${ATTEMPTS}) document.title = 'settled' }
  for (const [route, json] of [['RegisterProject', ${JSON.stringify(register)}], ['CreateSession', ${JSON.stringify(create)}]]) {
    fetch('${target}/v1/' + route, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: json })
      .then(() => done('fetch ' + route), () => done('fetch ' + route))
  }
  const socket = new WebSocket('${target.replace('http', 'ws')}/v1/events')
  socket.onopen = () => { window.socketOpened = true; done('ws') }
  socket.onerror = () => done('ws')
  for (const form of document.forms) {
    document.getElementById(form.id + '-frame').onload = () => done('form ' + form.id)
    form.submit()
  }
</script>`
}

/** Two fetches, three forms and the WebSocket: each carries the page's Origin. */
const ATTEMPTS = 6

interface Refusal {
  refused?: number
  origin?: string
  host?: string
}

async function refusals(): Promise<Refusal[]> {
  return ((await logEntries(daemon)) as Refusal[]).filter((entry) => entry.refused !== undefined)
}

async function unchanged(): Promise<void> {
  expect((await daemon.client.call('ListProjects')).projects).toEqual([])
  expect((await daemon.client.call('Snapshot')).instances).toEqual([])
  expect(existsSync(pwned)).toBe(false)
}

describe.skipIf(!present)('a web page in a real browser', () => {
  beforeAll(async () => {
    daemon = await startDaemon({
      config: { network: { listen_addr: '127.0.0.1:0', require_token: false, require_loopback_token: false } },
    })
    homes.keep(daemon.home)
    const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
    daemonPort = Number(addr.slice(addr.lastIndexOf(':') + 1))
    repo = await makeRepo(await homes.make())
    await mkdir(join(repo, 'x=y'))
    pwned = join(daemon.home, 'pwn=ed')
    register = JSON.stringify({ path: join(repo, 'x=y') })
    const create = JSON.stringify({ repo_path: repo, title: 'pwn', program: `touch ${pwned}` })
    const page = attackPage(`http://127.0.0.1:${daemonPort}`, register, create)
    attacker = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(page))
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as { port: number }).port}`
    browser = await launchChromium(await homes.make(), ['--host-resolver-rules=MAP evil.test 127.0.0.1'])
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    attacker?.close()
    await homes.release()
  })

  it('cannot change anything from another origin: no-cors fetch, form posts, WebSocket', async () => {
    const page = await browser.newPage()
    await page.goto(attackerOrigin)
    await page.waitForFunction("document.title === 'settled'", undefined, { timeout: 20_000 })
    expect(await page.evaluate('window.socketOpened === true')).toBe(false)
    const refused = await waitFor(async () => {
      const fromPage = (await refusals()).filter((entry) => entry.origin === attackerOrigin)
      return fromPage.length >= ATTEMPTS ? fromPage : undefined
    })
    expect(refused.every((entry) => entry.refused === 403)).toBe(true)
    await unchanged()
  }, 60_000)

  it('cannot reach it through a DNS-rebound name, even from that name\'s own origin', async () => {
    const page = await browser.newPage()
    const rebound = `http://evil.test:${daemonPort}`
    const landing = await page.goto(`${rebound}/v1/health`)
    expect(landing?.status()).toBe(403)
    const status = await page.evaluate(
      `fetch('/v1/RegisterProject', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(JSON.stringify({ path: repo }))} }).then((r) => r.status)`,
    )
    expect(status).toBe(403)
    // The log is written asynchronously: wait for both refusals to land in it.
    await waitFor(async () => (await refusals()).filter((entry) => entry.host === `evil.test:${daemonPort}`).length >= 2)
    await unchanged()
  }, 60_000)

  it('still serves a page of its own origin, so the refusals above are the gate at work', async () => {
    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${daemonPort}/v1/auth-info`)
    // The very body the attack sent, from the listener's own origin as JSON.
    const registered = await page.evaluate(
      `fetch('/v1/RegisterProject', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(register)} }).then((r) => r.status)`,
    )
    expect(registered).toBe(200)
    expect((await daemon.client.call('ListProjects')).projects).toHaveLength(1)
  }, 60_000)
})
