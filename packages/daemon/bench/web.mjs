// The web UI: its initial JavaScript gzipped (budget 250 KB), and one full update of the
// fleet page (every session changed) rendered in Chromium at 500 sessions against the
// same update at 10, measured in the same run. Target: no jank, a full update within a
// 16 ms frame. Printed, never asserted.
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { dirname, extname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'
import { build } from 'vite'
import { fmt, percentile, report, withTempDir } from './harness.mjs'

const WEB = dirname(createRequire(import.meta.url).resolve('@svc/web/package.json'))
const CHROMIUM = '/usr/bin/chromium'
const BUDGET_KB = 250
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }

/** The gzipped bytes of the scripts index.html loads before anything else. */
async function initialScriptBytes(dist) {
  const index = await readFile(join(dist, 'index.html'), 'utf8')
  const scripts = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((match) => match[1])
  let total = 0
  for (const script of scripts) total += gzipSync(await readFile(join(dist, script))).length
  return total
}

function serve(root) {
  const server = createServer((request, response) => {
    const path = join(root, new URL(request.url, 'http://x').pathname)
    readFile(path).then(
      (body) => response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body),
      () => response.writeHead(404).end(),
    )
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

export async function run() {
  await withTempDir(async (dir) => {
    const quiet = { root: WEB, logLevel: 'silent', build: { emptyOutDir: true } }
    await build({ ...quiet, build: { ...quiet.build, outDir: join(dir, 'app') } })
    await build({ ...quiet, base: './', build: { ...quiet.build, outDir: join(dir, 'bench'), rollupOptions: { input: join(WEB, 'bench/fleet.html') } } })
    const bytes = await initialScriptBytes(join(dir, 'app'))
    const server = await serve(join(dir, 'bench'))
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] })
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
      await page.goto(`http://127.0.0.1:${server.address().port}/bench/fleet.html`)
      const result = await page.waitForFunction(() => globalThis.benchResult, undefined, { timeout: 120_000 }).then((handle) => handle.jsonValue())
      if (result.error) throw new Error(`the fleet bench page failed: ${result.error}`)
      const floor = result.floor.sort((a, b) => a - b)
      const full = result.full.sort((a, b) => a - b)
      report('web UI: initial JavaScript, and one full fleet update rendered in Chromium', [
        ['initial JavaScript, gzipped', `${(bytes / 1024).toFixed(1)} KB (budget ${BUDGET_KB} KB)`],
        ['floor: 10 sessions', fmt.spread(floor)],
        ['svc: 500 sessions', fmt.spread(full)],
        ['p50 at 500 / floor p50', fmt.ratio(percentile(full, 50) / percentile(floor, 50), 'a full update within a 16 ms frame')],
      ])
    } finally {
      await browser.close()
      server.close()
    }
  })
}
