import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import { browserPresent, launchChromium, openSessionDaemon, tempHomes, type TestDaemon } from '@svc/test-kit'

/** The installable web UI in a real browser: its manifest, icons and service worker, and the shell offline. */
const present = browserPresent('pwa.test.ts')
const homes = tempHomes()
let daemon: TestDaemon
let origin: string
let token: string
let browser: BrowserContext
let page: Page

interface Fetched {
  status: number
  type: string | null
  cacheControl: string | null
  workerAllowed: string | null
  text: string
}

// Code run in the page is given as text: the tests compile without the DOM's types.

/** A GET from the page itself (its cookie, its service worker). */
const fetched = (path: string): Promise<Fetched> =>
  page.evaluate(`(async () => {
    const response = await fetch(${JSON.stringify(path)}, { credentials: 'same-origin' })
    const header = (name) => response.headers.get(name)
    return { status: response.status, type: header('content-type'), cacheControl: header('cache-control'), workerAllowed: header('service-worker-allowed'), text: await response.text() }
  })()`)

/** Every URL the page's caches hold. */
const cachedUrls = (): Promise<string[]> =>
  page.evaluate(`(async () => {
    const urls = []
    for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) urls.push(request.url)
    return urls
  })()`)

describe.skipIf(!present)('the installable web UI', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    ;({ daemon } = await openSessionDaemon(homes, { settings: { network: { listen_addr: '127.0.0.1:0' } } }))
    origin = `http://${(await daemon.client.call('Health')).listeners.tcp_bound_addr}`
    token = (await readFile(daemon.paths.token, 'utf8')).trim()
    browser = await launchChromium(await homes.make())
    page = await browser.newPage()
    await page.goto(`${origin}/?token=${token}`)
    await page.locator('[data-testid=feed]', { hasText: 'live' }).waitFor()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await homes.release()
  })

  it('links a valid manifest, fetched with the login cookie, whose icons load at their sizes', async () => {
    const link = page.locator('link[rel=manifest]')
    // The manifest is behind the token gate: without credentials its fetch would be refused.
    expect(await link.getAttribute('crossorigin')).toBe('use-credentials')
    const manifestPath = (await link.getAttribute('href')) as string
    const manifest = await fetched(manifestPath)
    expect(manifest).toMatchObject({ status: 200, type: expect.stringMatching(/^application\/manifest\+json/) })
    const fields = JSON.parse(manifest.text) as { icons: Array<{ src: string; sizes: string; purpose: string }> } & Record<string, unknown>
    expect(fields).toMatchObject({ name: expect.any(String), short_name: 'svc', start_url: '/', display: 'standalone', theme_color: expect.any(String), background_color: expect.any(String) })
    expect(fields.icons.map((icon) => `${icon.sizes} ${icon.purpose}`).sort()).toEqual(['192x192 any', '512x512 any', '512x512 maskable'])
    for (const icon of fields.icons) {
      const size = await page.evaluate(`(async () => {
        const response = await fetch(${JSON.stringify(new URL(icon.src, `${origin}${manifestPath}`).href)})
        const bitmap = await createImageBitmap(await response.blob())
        return response.headers.get('content-type') + ' ' + bitmap.width + 'x' + bitmap.height
      })()`)
      expect(size).toBe(`image/png ${icon.sizes}`)
    }
  })

  it('serves the worker revalidated, as JavaScript, and it registers, activates and controls the page', async () => {
    const worker = await fetched('/sw.js')
    expect(worker).toMatchObject({ status: 200, type: expect.stringMatching(/^(text|application)\/javascript/), cacheControl: 'no-cache', workerAllowed: null })
    expect(await page.evaluate('navigator.serviceWorker.ready.then((registration) => registration.scope)')).toBe(`${origin}/`)
    // It takes over the page that registered it (clients.claim), once activated.
    await page.waitForFunction("navigator.serviceWorker.controller?.state === 'activated'")
  })

  it('asks the daemon first for a page: a login still trades the token for the cookie, a refusal is not hidden', async () => {
    // The page loads through the worker now: the daemon answers, not the precache.
    await page.reload()
    await page.locator('[data-testid=feed]', { hasText: 'live' }).waitFor()
    expect(await page.evaluate('navigator.serviceWorker.controller !== null')).toBe(true)
    await browser.clearCookies()
    expect((await page.goto(`${origin}/`))?.status()).toBe(401)
    const loggedIn = await page.goto(`${origin}/?token=${token}`)
    expect(loggedIn?.status()).toBe(200)
    expect(page.url()).toBe(`${origin}/`)
    await page.locator('[data-testid=feed]', { hasText: 'live' }).waitFor()
  })

  it('caches the shell only: never an API answer, a login URL or anything from elsewhere', async () => {
    const api = await page.evaluate<number>("performance.getEntriesByType('resource').filter((entry) => new URL(entry.name).pathname.startsWith('/v1/')).length")
    // The fleet asked the API, so its answers could have been cached.
    expect(api).toBeGreaterThan(0)
    const urls = await cachedUrls()
    const scripts = await page.evaluate<string[]>("[...document.querySelectorAll('script[src]')].map((script) => script.src)")
    expect(urls.map((url) => new URL(url).pathname)).toEqual(expect.arrayContaining(['/index.html', '/manifest.webmanifest', ...scripts.map((src) => new URL(src).pathname)]))
    for (const url of urls) {
      const parsed = new URL(url)
      expect(parsed.origin).toBe(origin)
      expect(parsed.pathname).not.toMatch(/^\/v1\//)
      expect(parsed.search).not.toMatch(/token/)
    }
  })

  it('shows the shell, reconnecting, when reloaded while the daemon is stopped', async () => {
    await daemon.stop()
    await page.reload()
    await page.locator('[data-testid=feed]', { hasText: 'reconnecting' }).waitFor()
    expect(await page.locator('nav').count()).toBeGreaterThan(0)
    expect((await cachedUrls()).filter((url) => new URL(url).pathname.startsWith('/v1/'))).toEqual([])
  })
})
