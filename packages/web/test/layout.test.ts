import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import { browserPresent, launchChromium, logIn, openSessionDaemon, saveScreenshot, tempHomes, waitFor, waitForSession, type TestDaemon } from '@svc/test-kit'

/**
 * The web UI's layout, themes, empty states, toasts and keyboard in a real browser against
 * a real daemon; it saves the screenshots the README shows (docs/screenshots/).
 */
const present = browserPresent('layout.test.ts')
const homes = tempHomes()
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }
let daemon: TestDaemon
let repo: string
let origin: string
let browser: BrowserContext
let page: Page
const ids: Record<string, string> = {}

const terminalText = (target: Page) => target.locator('[data-session-pane] .xterm-rows').innerText()
const hash = (target: Page) => new URL(target.url()).hash
/** What has the focus: a rail row's session id, the terminal's input, or the element's tag. */
const focused = (target: Page) =>
  target.evaluate<string>(`(() => {
    const element = document.activeElement
    if (element.classList.contains('xterm-helper-textarea')) return 'terminal:' + element.closest('[data-session-pane]')?.dataset.sessionPane
    return element.dataset.sessionId ? 'row:' + element.dataset.sessionId : element.tagName + ':' + (element.getAttribute('aria-label') ?? '')
  })()`)
const background = (target: Page) => target.evaluate<string>('getComputedStyle(document.body).backgroundColor')
const LIGHT = 'rgb(255, 255, 255)'
const DARK = 'rgb(11, 17, 32)'

async function shoot(target: Page, name: string, theme: 'light' | 'dark', width: number): Promise<void> {
  const shot = await saveScreenshot(target, name, theme, width)
  expect(shot.length).toBeGreaterThan(5000)
}

/** The new-session dialog is open over the page, where it was opened: Esc closes it and the page stays. */
async function closeNewSessionDialog(target: Page): Promise<void> {
  const before = hash(target)
  const dialog = target.getByRole('dialog', { name: 'New session' })
  await dialog.waitFor()
  await target.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })
  expect(hash(target)).toBe(before)
}

async function openSession(target: Page, title: string): Promise<void> {
  await target.goto(`${origin}/#/session/${ids[title]}`)
  await target.getByRole('heading', { level: 1, name: title }).waitFor()
  // A terminal that never shows the agent says what it showed instead.
  await waitFor(async () => {
    const shown = await terminalText(target)
    if (!shown.includes('fake-agent ready')) throw new Error(`the terminal shows ${JSON.stringify(shown.trim().slice(-400))}`)
    return true
  }, 20_000)
}

describe.skipIf(!present)('the web UI layout', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    ;({ daemon, repo } = await openSessionDaemon(homes, { settings: { network: { listen_addr: '127.0.0.1:0' } } }))
    origin = `http://${(await daemon.client.call('Health')).listeners.tcp_bound_addr}`
    await daemon.client.call('RegisterProject', { path: repo })
    browser = await launchChromium(await homes.make())
    page = await browser.newPage()
    await page.setViewportSize(DESKTOP)
    await logIn(page, origin, daemon.paths.token)
    const feed = page.locator('[data-testid=feed]')
    // On a loaded machine the first page (and its first event feed) can be slow; if it never goes live, say what the page showed.
    await feed.filter({ hasText: 'live' }).waitFor({ timeout: 45_000 }).catch(async (error: Error) => {
      const shown = await page.locator('body').innerText().catch(() => '(no page)')
      throw new Error(`the feed never went live at ${page.url()}: ${error.message}\npage: ${shown.slice(0, 500)}`)
    })
  }, 90_000)
  afterAll(async () => {
    await browser?.close()
    await homes.release()
  })

  it('says what to do with no sessions yet, and its New session button opens the new-session form', async () => {
    const empty = page.locator('[data-empty=no-sessions]')
    await empty.first().waitFor()
    // In the rail and beside it, each with the button.
    await waitFor(async () => (await empty.count()) === 2 || undefined)
    expect(await empty.first().innerText()).toContain('No sessions yet')
    await empty.last().getByRole('button', { name: 'New session' }).click()
    await closeNewSessionDialog(page)
  })

  it('shows the rail and a live terminal side by side at 1280×800, the selection in the URL through reload and back', async () => {
    for (const title of ['alpha', 'beta']) {
      await daemon.client.call('CreateSession', { repo_path: repo, title, program: 'claude' })
      ids[title] = (await waitForSession(daemon, title, (s) => s.liveness_name === 'ready')).id
    }
    await page.goto(`${origin}/#/`)
    await page.locator('[data-empty=no-selection]', { hasText: 'Select a session, or press n for a new one.' }).waitFor()
    // Grouped by project, with the count.
    const group = page.locator('[data-rail] section', { has: page.locator('[data-session=alpha]') })
    expect((await group.locator('h2').innerText()).replace(/\s+/g, ' ')).toMatch(/repo 2 sessions$/)
    expect(await page.locator('[data-session=alpha] [data-state=ready]').innerText()).toBe('ready')
    await page.locator('[data-session=alpha]').click()
    expect(hash(page)).toBe(`#/session/${ids.alpha}`)
    await waitFor(async () => (await terminalText(page)).includes('fake-agent ready') || undefined)
    const rail = await page.locator('[data-rail]').boundingBox()
    const terminal = await page.locator('[data-session-pane] [data-testid=terminal]').boundingBox()
    expect(rail && terminal).toBeTruthy()
    if (!rail || !terminal) return
    // Side by side, both inside the window: the fleet and a live terminal at once.
    expect(rail.x + rail.width).toBeLessThanOrEqual(terminal.x)
    expect(terminal.x + terminal.width).toBeLessThanOrEqual(DESKTOP.width)
    expect(terminal.y + terminal.height).toBeLessThanOrEqual(DESKTOP.height)
    expect(terminal.height).toBeGreaterThan(300)
    // The desktop has keys: the phone's key row is not shown.
    expect(await page.getByRole('toolbar', { name: 'terminal keys' }).isVisible()).toBe(false)

    await page.reload()
    await page.getByRole('heading', { level: 1, name: 'alpha' }).waitFor()
    expect(await page.locator('[data-session=alpha]').getAttribute('aria-current')).toBe('page')
    await page.locator('[data-session=beta]').click()
    await page.getByRole('heading', { level: 1, name: 'beta' }).waitFor()
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'alpha' }).waitFor()
    expect(hash(page)).toBe(`#/session/${ids.alpha}`)
    expect(await page.locator('[data-session=beta]').getAttribute('aria-current')).toBeNull()
  })

  it('says when nothing matches the filter, and clears it', async () => {
    const filter = page.getByRole('searchbox', { name: 'filter sessions' })
    await filter.fill('no-such-session')
    await page.locator('[data-empty=no-match]', { hasText: 'Nothing matches “no-such-session”.' }).waitFor()
    expect(await page.locator('[data-rail] [data-session]').count()).toBe(0)
    await page.getByRole('button', { name: 'Clear the filter' }).click()
    expect(await filter.inputValue()).toBe('')
    await page.locator('[data-session=alpha]').waitFor()
  })

  it('moves with the keyboard: / filters, Esc leaves the field, j/k and the arrows select, Enter types in the terminal, Ctrl+] leaves it, ? lists the keys, n opens a new session', async () => {
    await openSession(page, 'alpha')
    await page.evaluate(`document.activeElement?.blur()`)
    await page.keyboard.press('/')
    expect(await focused(page)).toBe('INPUT:filter sessions')
    // Typing in the field is typing, not shortcuts.
    await page.keyboard.type('jn')
    expect(hash(page)).toBe(`#/session/${ids.alpha}`)
    await page.getByRole('searchbox', { name: 'filter sessions' }).fill('')
    await page.keyboard.press('Escape')
    expect(await focused(page)).toBe(`row:${ids.alpha}`)

    // By title, as the terminal UI orders them: alpha, then beta.
    const order = await page.evaluate<string[]>(`[...document.querySelectorAll('[data-rail] a[data-session-id]')].map((row) => row.dataset.sessionId)`)
    expect(order).toEqual([ids.alpha, ids.beta])
    await page.keyboard.press('j')
    await waitFor(() => hash(page) === `#/session/${ids.beta}` || undefined)
    await page.getByRole('heading', { level: 1, name: 'beta' }).waitFor()
    expect(await focused(page)).toBe(`row:${ids.beta}`)
    await page.keyboard.press('k')
    await waitFor(() => hash(page) === `#/session/${ids.alpha}` || undefined)
    await page.keyboard.press('ArrowDown')
    await waitFor(() => hash(page) === `#/session/${ids.beta}` || undefined)
    await page.keyboard.press('ArrowUp')
    await waitFor(() => hash(page) === `#/session/${ids.alpha}` || undefined)

    await page.keyboard.press('Enter')
    await waitFor(async () => (await focused(page)) === `terminal:${ids.alpha}` || undefined)
    // In the terminal the keys are the agent's: j, n and Esc reach it and leave the selection alone.
    await page.keyboard.type('jn\r')
    await waitFor(async () => (await terminalText(page)).includes('received: jn') || undefined)
    await page.keyboard.press('Escape')
    expect(await focused(page)).toBe(`terminal:${ids.alpha}`)
    expect(hash(page)).toBe(`#/session/${ids.alpha}`)
    await page.keyboard.press('Control+BracketRight')
    expect(await focused(page)).toBe(`row:${ids.alpha}`)

    await page.keyboard.press('?')
    const overlay = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
    await overlay.waitFor()
    const listed = await overlay.locator('dt').allInnerTexts()
    expect(listed.map((keys) => keys.replace(/\s+/g, ' '))).toEqual(['n', '/', 'j or ↓', 'k or ↑', 'Enter', 'Ctrl+]', 'Esc', '?'])
    expect(await overlay.innerText()).toContain('Leave the terminal, back to the session list (Esc goes to the agent)')
    await page.keyboard.press('Escape')
    await overlay.waitFor({ state: 'detached' })

    await page.keyboard.press('n')
    await closeNewSessionDialog(page)
  })

  it('raises a toast for an outcome: a success politely, a refusal assertively, the words inline too', async () => {
    await openSession(page, 'alpha')
    // Radix speaks a toast through a live region it keeps for a moment: what was said, and how, is recorded.
    const recordAnnouncements = () =>
      page.evaluate(`(() => {
        window.announced = new Set()
        setInterval(() => document.querySelectorAll('[aria-live]').forEach((el) => el.textContent && window.announced.add(el.getAttribute('aria-live') + ':' + el.textContent)), 20)
      })()`)
    const announced = async (live: string, text: string) => waitFor(async () => (await page.evaluate<string[]>('[...window.announced]')).some((entry) => entry.startsWith(`${live}:`) && entry.includes(text)) || undefined)
    await recordAnnouncements()
    await page.getByRole('textbox', { name: 'prompt for alpha' }).fill('toast me')
    await page.locator('[data-testid=prompt]').getByRole('button', { name: 'Send' }).click()
    const success = page.locator('[data-outcome=ok]', { hasText: /^Prompt / })
    await success.waitFor()
    expect(await page.locator('[data-testid=prompt] .ok').innerText()).toBe(await success.innerText())
    // Inside the toasts' labelled region, which F8 reaches.
    expect(await page.getByRole('region', { name: /^Notifications/ }).locator('[data-outcome=ok]').count()).toBeGreaterThan(0)
    await announced('polite', 'Prompt ')

    await daemon.client.call('RegisterAccount', { agent: 'claude', name: 'work' })
    await page.goto(`${origin}/#/accounts`)
    await page.locator('li', { hasText: 'claude / work' }).waitFor()
    await recordAnnouncements()
    await page.getByLabel('agent', { exact: true }).selectOption('claude')
    // The same name in other letters is another account's twin: refused.
    await page.getByLabel('account name').fill('WORK')
    await page.getByRole('button', { name: 'Register' }).click()
    const refusal = page.locator('[data-outcome=refused]', { hasText: 'exists' })
    await refusal.waitFor()
    expect(await page.locator('main .error').innerText()).toContain('account names are unique')
    await announced('assertive', 'exists')
  })

  it('shows a phone the rail, then the session full screen with the key row and a way back, at 390×844', async () => {
    const phone = await browser.newPage()
    await phone.setViewportSize(PHONE)
    await phone.goto(`${origin}/#/`)
    await phone.locator('[data-session=alpha]').waitFor()
    expect(await phone.locator('[data-empty=no-selection]').isVisible()).toBe(false)
    await phone.locator('[data-session=alpha]').click()
    await waitFor(async () => (await terminalText(phone)).includes('fake-agent ready') || undefined, 20_000)
    expect(await phone.locator('[data-rail]').isVisible()).toBe(false)
    const terminal = await phone.locator('[data-testid=terminal]').boundingBox()
    expect(terminal?.width).toBeGreaterThan(330)
    expect(terminal?.width).toBeLessThanOrEqual(PHONE.width)
    const keys = phone.getByRole('toolbar', { name: 'terminal keys' })
    expect(await keys.isVisible()).toBe(true)
    const row = await keys.boundingBox()
    expect((row?.y ?? Infinity) + (row?.height ?? 0)).toBeLessThanOrEqual(PHONE.height)
    await phone.getByRole('link', { name: 'Sessions' }).last().click()
    await phone.locator('[data-rail]').waitFor()
    expect(hash(phone)).toBe('#/')
    await phone.close()
  })

  it('keeps the theme chosen from the menu across a reload, and on auto follows the system', async () => {
    const themed = await browser.newPage()
    await themed.emulateMedia({ colorScheme: 'light' })
    await themed.goto(`${origin}/#/`)
    const choose = async (name: string) => {
      await themed.getByRole('button', { name: /^Theme: / }).click()
      await themed.getByRole('menuitemradio', { name }).click()
    }
    await choose('Dark')
    expect(await background(themed)).toBe(DARK)
    await themed.reload()
    await themed.locator('[data-session=alpha]').waitFor()
    expect(await background(themed)).toBe(DARK)
    expect(await themed.getByRole('button', { name: 'Theme: Dark' }).count()).toBe(1)
    // The terminal's palette follows.
    await openSession(themed, 'alpha')
    expect(await themed.evaluate<string>(`getComputedStyle(document.querySelector('[data-session-pane] .xterm-scrollable-element')).backgroundColor`)).toBe(DARK)

    await choose('Auto (system)')
    expect(await background(themed)).toBe(LIGHT)
    await themed.emulateMedia({ colorScheme: 'dark' })
    await waitFor(async () => (await background(themed)) === DARK || undefined)
    await choose('Light')
    expect(await background(themed)).toBe(LIGHT)
    await themed.reload()
    await themed.getByRole('heading', { level: 1, name: 'alpha' }).waitFor()
    expect(await background(themed)).toBe(LIGHT)
    await choose('Auto (system)')
    await themed.close()
  })

  it('names an icon-only control in a tooltip on hover and on keyboard focus, in a one-row header on a phone', async () => {
    const phone = await browser.newPage()
    await phone.setViewportSize(PHONE)
    await phone.goto(`${origin}/#/`)
    // On a phone the pages are icons: hovering one names it.
    await phone.getByRole('link', { name: 'Tasks' }).hover()
    await waitFor(async () => (await phone.getByRole('tooltip').innerText().catch(() => '')) === 'Tasks' || undefined)
    await phone.mouse.move(0, 400)
    await phone.getByRole('button', { name: /^Theme: / }).focus()
    await waitFor(async () => (await phone.getByRole('tooltip').innerText().catch(() => '')) === 'Theme: Auto (system)' || undefined)
    // The header is one row of icons there: the page keeps its height for the sessions.
    expect((await phone.locator('header').boundingBox())?.height).toBeLessThan(60)
    expect(await phone.getByRole('button', { name: 'Keyboard shortcuts' }).isVisible()).toBe(false)
    await phone.close()
  })

  it('saves a screenshot of each page in each theme at 1280 and 390 px', { timeout: 180_000 }, async () => {
    await daemon.client.call('AddTask', {
      task: { name: 'nightly', cron_expr: '0 3 * * *', prompt: 'nightly run', target_session: 'alpha', project_path: repo, enabled: true },
    })
    const shots = await browser.newPage()
    // Each theme as the system's: no choice kept from before.
    await shots.goto(`${origin}/#/`)
    await shots.evaluate(`localStorage.removeItem('svc.theme')`)
    const pages: Array<[string, () => Promise<void>]> = [
      ['fleet', async () => void (await shots.goto(`${origin}/#/`), await shots.locator('[data-session=alpha]').waitFor())],
      ['session', () => openSession(shots, 'alpha')],
      ['tasks', async () => void (await shots.goto(`${origin}/#/tasks`), await shots.locator('[data-task=nightly]').waitFor())],
      ['projects', async () => void (await shots.goto(`${origin}/#/projects`), await shots.locator('[data-project]').first().waitFor())],
      ['accounts', async () => void (await shots.goto(`${origin}/#/accounts`), await shots.locator('[data-account]').first().waitFor())],
    ]
    for (const theme of ['light', 'dark'] as const) {
      await shots.emulateMedia({ colorScheme: theme })
      for (const size of [DESKTOP, PHONE]) {
        await shots.setViewportSize(size)
        for (const [name, shown] of pages) {
          await shown()
          // The page follows the system's scheme on its next frame.
          await waitFor(async () => (await background(shots)) === (theme === 'light' ? LIGHT : DARK) || undefined)
          await shoot(shots, name, theme, size.width)
        }
      }
    }
    // On a phone the task table's headings are hidden: each cell names itself.
    await shots.goto(`${origin}/#/tasks`)
    await shots.locator('[data-task=nightly]').waitFor()
    const label = () => shots.evaluate<string>(`getComputedStyle(document.querySelector('[data-task=nightly] td[data-label="Next run"]'), '::before').content`)
    expect(await label()).toContain('Next run')
    await shots.setViewportSize(DESKTOP)
    expect(await label()).toBe('none')
    await shots.close()
  })
})
