import { existsSync } from 'node:fs'
import { chromium, type BrowserContext } from 'playwright-core'

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
