import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import {
  auditAccessibility,
  browserPresent,
  launchChromium,
  logIn,
  openSessionDaemon,
  session,
  tempHomes,
  violationWords,
  waitFor,
  waitForSession,
  type TestDaemon,
} from '@svc/test-kit'

/**
 * Every page of the web UI, with something on it (a session and its terminal, a task, an
 * account, a project), audited by axe-core in a real browser in the light and the dark
 * color scheme: no violation of impact serious or critical may remain.
 */
const present = browserPresent('a11y.test.ts')
const homes = tempHomes()
let daemon: TestDaemon
let origin: string
let sessionId: string
let browser: BrowserContext
let page: Page

/** A page to audit: where it is, and what shows it has loaded (and opened) what it shows. */
interface Shown {
  name: string
  hash: () => string
  ready: (page: Page) => Promise<void>
}

const PAGES: Shown[] = [
  { name: 'the fleet', hash: () => '#/', ready: (page) => page.locator('[data-session=alpha]').waitFor() },
  {
    name: 'a session and its terminal',
    hash: () => `#/session/${sessionId}`,
    ready: async (page) => {
      await page.getByRole('heading', { level: 1, name: 'alpha' }).waitFor()
      await waitFor(async () => (await page.locator('.xterm-rows').innerText()).includes('fake-agent ready') || undefined)
    },
  },
  {
    name: 'the keyboard shortcuts overlay',
    hash: () => `#/session/${sessionId}`,
    ready: async (page) => {
      await page.getByRole('heading', { level: 1, name: 'alpha' }).waitFor()
      await page.keyboard.press('?')
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor()
    },
  },
  {
    name: 'a kill confirmation',
    hash: () => `#/session/${sessionId}`,
    ready: async (page) => {
      await page.getByRole('button', { name: 'Kill' }).click()
      await page.getByRole('alertdialog').waitFor()
    },
  },
  {
    name: 'the new-session dialog, open',
    hash: () => '#/new',
    ready: async (page) => {
      const title = page.getByRole('dialog', { name: 'New session' }).getByRole('textbox', { name: 'Title' })
      await waitFor(async () => ((await title.getAttribute('placeholder')) ? true : undefined))
    },
  },
  {
    name: 'the tasks and the new-task form',
    hash: () => '#/tasks',
    ready: async (page) => {
      await page.locator('[data-task=nightly]').waitFor()
      await page.getByRole('button', { name: 'New task' }).click()
      await page.getByRole('button', { name: 'Add task' }).waitFor()
    },
  },
  {
    name: 'the accounts and a login terminal',
    hash: () => '#/accounts',
    ready: async (page) => {
      await page.locator('li', { hasText: 'claude / work: not logged in' }).getByRole('button', { name: 'Log in' }).click()
      const login = page.locator('[data-testid=login]')
      await waitFor(async () => (await login.locator('.xterm-rows').innerText()).includes('fake-agent ready') || undefined)
    },
  },
  {
    name: 'the config, advanced keys unfolded',
    hash: () => '#/config',
    ready: async (page) => {
      await page.locator('[data-tier=core] form[data-key=default_program]').waitFor()
      await page.getByRole('button', { name: /^Advanced/ }).click()
      await page.locator('[data-tier=advanced] form[data-key]').first().waitFor()
    },
  },
  {
    name: "the config assistant's terminal",
    hash: () => '#/config',
    ready: async (page) => {
      await page.getByRole('button', { name: 'Configure with assistant' }).click()
      const assistant = page.getByTestId('assistant')
      await waitFor(async () => (await assistant.locator('.xterm-rows').innerText()).includes('received:') || undefined, 30_000)
    },
  },
  {
    name: 'the projects and the directory browser',
    hash: () => '#/projects',
    ready: async (page) => {
      await page.locator('[data-project] code').first().waitFor()
      await page.getByRole('button', { name: /^Browse/ }).click()
      await page.getByRole('button', { name: 'parent directory' }).waitFor()
    },
  },
]

describe.skipIf(!present)('the web UI audited for accessibility', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    const opened = await openSessionDaemon(homes, { settings: { network: { listen_addr: '127.0.0.1:0' } } })
    daemon = opened.daemon
    origin = `http://${(await daemon.client.call('Health')).listeners.tcp_bound_addr}`
    await daemon.client.call('RegisterProject', { path: opened.repo })
    await daemon.client.call('CreateSession', { repo_path: opened.repo, title: 'alpha', program: 'claude' })
    sessionId = (await waitForSession(daemon, 'alpha', (s) => s.liveness_name === 'ready')).id
    await daemon.client.call('AddTask', {
      task: { name: 'nightly', cron_expr: '0 3 * * *', prompt: 'nightly run', target_session: 'alpha', project_path: opened.repo, enabled: true },
    })
    await daemon.client.call('RegisterAccount', { agent: 'claude', name: 'work' })
    browser = await launchChromium(await homes.make())
    page = await browser.newPage()
    await logIn(page, origin, daemon.paths.token)
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await homes.release()
  })

  for (const colorScheme of ['light', 'dark'] as const) {
    describe(`with prefers-color-scheme ${colorScheme}`, () => {
      beforeAll(() => page.emulateMedia({ colorScheme }))

      it(`paints the page in its ${colorScheme} colors`, async () => {
        await page.goto(`${origin}/#/`)
        await page.locator('[data-session=alpha]').waitFor()
        // The page follows the system's scheme as it changes (on its next frame), without a reload.
        const painted = colorScheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(11, 17, 32)'
        await waitFor(async () => (await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')) === painted || undefined)
      })

      for (const shown of PAGES) {
        it(`shows ${shown.name} with no serious or critical violation`, async () => {
          // A fresh load each time: a page's own state (an open form, a question) starts over.
          await page.goto(`${origin}/${shown.hash()}`)
          await page.reload()
          await page.locator('[data-testid=feed]', { hasText: 'live' }).waitFor()
          await shown.ready(page)
          const violations = await auditAccessibility(page)
          expect(violations, `axe on ${shown.name} (${colorScheme}):\n${violationWords(violations)}`).toEqual([])
        })
      }

      it('outlines whatever the keyboard focuses', async () => {
        await page.goto(`${origin}/#/`)
        await page.reload()
        await page.locator('[data-session=alpha]').waitFor()
        // From the header's links through the filter to the first session, each shows it has the focus.
        const reached: string[] = []
        while (!reached.includes('alpha')) {
          await page.keyboard.press('Tab')
          const focused = await page.evaluate<{ name: string; style: string; width: string }>(
            `(() => {
              const focused = document.activeElement
              const style = getComputedStyle(focused)
              return { name: focused.dataset.session ?? focused.textContent ?? focused.tagName, style: style.outlineStyle, width: style.outlineWidth }
            })()`,
          )
          reached.push(focused.name)
          expect(reached.length, `tabbed through ${reached.join(', ')}`).toBeLessThan(15)
          expect(focused.style, `${focused.name} focused`).not.toBe('none')
          expect(parseFloat(focused.width), `${focused.name} focused`).toBeGreaterThanOrEqual(2)
        }
        expect(reached.slice(0, 3)).toEqual(['svc', 'Sessions', 'Tasks'])
      })
    })
  }

  it('asks a confirmation with the focus on Cancel, and gives the focus back to the button on Cancel', async () => {
    await page.goto(`${origin}/#/session/${sessionId}`)
    await page.reload()
    await page.getByRole('button', { name: 'Kill' }).click()
    const question = page.getByRole('alertdialog', { name: /^Kill alpha\?/ })
    const focused = () => page.evaluate<string>('document.activeElement.textContent')
    await question.waitFor()
    expect(await focused()).toBe('Cancel')
    await page.keyboard.press('Enter')
    await question.waitFor({ state: 'detached' })
    // Radix gives the focus back on the task after the dialog unmounts.
    await waitFor(async () => (await focused()) === 'Kill' || undefined)
    expect((await session(daemon, 'alpha')).title).toBe('alpha')
  })

  it('names the terminal, its input and, on a phone, its key row and arrow keys for a screen reader', async () => {
    const phone = await browser.newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    await phone.goto(`${origin}/#/session/${sessionId}`)
    await phone.getByRole('group', { name: /^alpha: .+ terminal$/ }).waitFor()
    expect(await phone.getByRole('textbox', { name: /^alpha: .+ terminal$/ }).count()).toBe(1)
    const keys = phone.getByRole('toolbar', { name: 'terminal keys' })
    expect(await keys.getByRole('button').allInnerTexts()).toEqual(['Esc', 'Tab', 'Ctrl-C', '←', '↑', '↓', '→', 'Enter'])
    expect(await keys.getByRole('button', { name: 'left arrow' }).innerText()).toBe('←')
    const violations = await auditAccessibility(phone)
    expect(violations, `axe on a session on a phone:\n${violationWords(violations)}`).toEqual([])
    await phone.close()
  })
})
