import { existsSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page, type Response } from 'playwright-core'

/** Debian's Chromium: the browser tests drive the system executable (no download works here). */
export const CHROMIUM = '/usr/bin/chromium'

/** Whether browser tests run: always in CI (`.ci/run` installs Chromium), else when it is installed. */
export function browserPresent(file: string): boolean {
  const present = existsSync(CHROMIUM)
  if (!present && !process.env.CI) console.warn(`${file}: skipped, ${CHROMIUM} is missing (apt-get install chromium); CI never skips it`)
  return present || Boolean(process.env.CI)
}

/** A headless Chromium with its own profile directory; `args` add switches (host resolver rules, say). */
export function launchChromium(profile: string, args: string[] = []): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...args,
    ],
  })
}

/** Opens the login URL `svc web` prints for the daemon whose token is at `tokenPath`: the page trades it for the cookie. */
export async function logIn(page: Page, origin: string, tokenPath: string): Promise<Response | null> {
  const token = (await readFile(tokenPath, 'utf8')).trim()
  return page.goto(`${origin}/?token=${token}`)
}

/** Where the browser tests leave their pictures of the web UI, the ones the README and docs show. */
const SCREENSHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url))

/** A picture of the page as `docs/screenshots/<name>-<theme>-<width>.png`; its bytes, for a test to look at. */
export async function saveScreenshot(page: Page, name: string, theme: 'light' | 'dark', width: number): Promise<Buffer> {
  await mkdir(SCREENSHOTS, { recursive: true })
  return page.screenshot({ path: `${SCREENSHOTS}${name}-${theme}-${width}.png` })
}

/** One rule axe-core found broken on a page, with the elements that break it. */
export interface AxeViolation {
  id: string
  impact: string
  help: string
  targets: string[]
}

/** The impacts that fail an audit: what keeps someone from using the page at all. */
const FAILING_IMPACTS = new Set(['serious', 'critical'])

let axeSource: Promise<string> | undefined

/**
 * Runs axe-core in the page as it is shown now (injected from the package, no network) and
 * answers the violations of impact serious or critical.
 */
export async function auditAccessibility(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  await page.addScriptTag({ content: await axeSource })
  const violations = await page.evaluate<Array<{ id: string; impact?: string; help: string; nodes: Array<{ target: unknown[] }> }>>(
    `axe.run(document, { resultTypes: ['violations'] }).then((results) => results.violations)`,
  )
  return violations
    .filter((violation) => FAILING_IMPACTS.has(violation.impact ?? ''))
    .map(({ id, impact = '', help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.map(String).join(' ')) }))
}

/** Violations as lines a failing test prints: rule, impact, help and every offending selector. */
export function violationWords(violations: AxeViolation[]): string {
  return violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.help}\n    ${violation.targets.join('\n    ')}`).join('\n')
}
