import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import { createServer, type ViteDevServer } from 'vite'
import { browserPresent, launchChromium, makeRepo, send, startSessionDaemon, tempHomes, type TestDaemon } from '@svc/test-kit'

/**
 * A real Vite dev server behind a web tab, in a real browser: at its preview origin the
 * page, its modules and its hot-reload socket all work, and an edit reaches the page
 * without a reload; the same-origin mirror serves what it is asked under its prefix.
 */
const present = browserPresent('webtab.browser.test.ts')

const homes = tempHomes()
let daemon: TestDaemon
let vite: ViteDevServer
let app: string
let browser: BrowserContext
let sessionId: string
let tabId: string
let tcpPort: number

const portOf = (addr: string) => Number(addr.slice(addr.lastIndexOf(':') + 1))

/** An app in Vite's usual shape, except that index.html names its entry relatively. */
async function writeApp(dir: string): Promise<void> {
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>app</title><p id="out">loading</p><script type="module" src="./main.js"></script>')
  await writeFile(join(dir, 'message.js'), 'export const message = "first"\n')
  await writeFile(
    join(dir, 'main.js'),
    `import { message } from './message.js'
const out = document.getElementById('out')
out.textContent = message
window.loadedOnce = true
import.meta.hot?.accept('./message.js', (next) => { out.textContent = next.message })
`,
  )
}

describe.runIf(present)('a Vite dev server in a web tab', () => {
  beforeAll(async () => {
    const dir = await homes.make()
    const repo = await makeRepo(dir)
    app = join(dir, 'app')
    await mkdir(app)
    await writeApp(app)
    vite = await createServer({ root: app, configFile: false, logLevel: 'silent', server: { host: 'localhost', port: 0 } })
    await vite.listen()
    const vitePort = (vite.httpServer?.address() as { port: number }).port
    daemon = await startSessionDaemon({
      home: join(dir, 'svc'),
      settings: { network: { listen_addr: '127.0.0.1:0', preview_listen_addr: '127.0.0.1:0' } },
    })
    sessionId = (await daemon.client.call('CreateSession', { repo_path: repo, title: 'vite' })).instance.id
    tabId = (await daemon.post('/v1/CreateTab', { title: 'vite', kind: 'web', port: vitePort })).json.data.id
    tcpPort = portOf((await daemon.client.call('Health')).listeners.tcp_bound_addr)
    browser = await launchChromium(await homes.make())
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await vite?.close()
    await homes.release()
  })

  const textOf = (page: Page) => page.locator('#out').textContent()

  it('runs at its preview origin with hot reload: an edit reaches the page without a reload', async () => {
    const { origin } = (await send(daemon.socket, 'GET', `/v1/preview-auth?session=${sessionId}&tab=${tabId}`)).json.data
    expect(origin).toMatch(/^http:\/\/svc[a-z2-7]{32}\.localhost:\d+$/)
    const page = await browser.newPage()
    const logs: string[] = []
    page.on('console', (message) => logs.push(message.text()))
    await page.goto(`${origin}/`)
    await expect.poll(() => textOf(page)).toBe('first')
    await expect.poll(() => logs.some((line) => line.includes('[vite] connected'))).toBe(true)
    const message = join(app, 'message.js')
    await writeFile(message, (await readFile(message, 'utf8')).replace('first', 'edited'))
    await expect.poll(() => textOf(page), { timeout: 15_000 }).toBe('edited')
    // Hot replacement, not a reload: the page's own state survived.
    expect(await page.evaluate('window.loadedOnce')).toBe(true)
    expect(logs.join('\n')).not.toMatch(/WebSocket connection .* failed/)
    await page.close()
  })

  // Why preview origins exist: Vite's dev server writes absolute paths (`/@vite/client`,
  // and every import it rewrites), which leave the mirror's prefix for the API's root.
  it('loads through the same-origin mirror after a token login, where absolute paths escape the prefix', async () => {
    const token = (await readFile(daemon.paths.token, 'utf8')).trim()
    const page = await browser.newPage()
    const statuses = new Map<string, number>()
    page.on('response', (response) => statuses.set(new URL(response.url()).pathname, response.status()))
    const mirror = `/v1/webtab/${sessionId}/${tabId}`
    const base = `http://127.0.0.1:${tcpPort}${mirror}`
    await page.goto(`${base}/?token=${token}`)
    expect(page.url()).toBe(`${base}/`)
    await expect.poll(() => statuses.get(`${mirror}/main.js`)).toBe(200)
    expect(statuses.get(`${mirror}/`)).toBe(200)
    expect(await page.locator('script[src="/@vite/client"]').count()).toBe(1)
    await expect.poll(() => statuses.get('/@vite/client')).toBe(404)
    expect(await textOf(page)).toBe('loading')
    await page.close()
  })
})
