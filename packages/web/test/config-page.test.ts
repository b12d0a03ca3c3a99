import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Locator, Page } from 'playwright-core'
import { browserPresent, launchChromium, logIn, openSessionDaemon, saveScreenshot, tempHomes, waitFor, type TestDaemon } from '@svc/test-kit'

/**
 * The config page in a real browser against a real daemon: keys by tier, a control per
 * type each saving a real key, the daemon's refusal beside its field, and the config
 * assistant (the fake agent) in a terminal on the page.
 */
const present = browserPresent('config-page.test.ts')
const homes = tempHomes()
let daemon: TestDaemon
let repo: string
let origin: string
let browser: BrowserContext
let page: Page

/** A key's entry as the daemon shows it now: the proof a control saved, or did not. */
async function entry(key: string, repoPath?: string) {
  const { entries } = await daemon.client.call('GetConfig', repoPath ? { repo_path: repoPath } : {})
  const found = entries.find((each) => each.key === key)
  if (!found) throw new Error(`GetConfig has no ${key}`)
  return found
}

/** Waits until the daemon holds `value` for `key`. */
const holds = (key: string, value: string, repoPath?: string) =>
  waitFor(async () => ((await entry(key, repoPath)).value === value ? true : undefined), 10_000).catch(async () => {
    throw new Error(`${key} is ${(await entry(key, repoPath)).value}, not ${value}`)
  })

const row = (key: string) => page.locator(`form[data-key="${key}"]`)
const save = (key: string) => row(key).getByRole('button', { name: 'Save' }).click()
/** Saves `key`'s row; waits until the daemon holds `value` and the page has taken its answer (the draft starts over from it, so Save has nothing left to send). */
async function saved(key: string, value: string) {
  await save(key)
  await holds(key, value)
  await waitFor(async () => ((await row(key).getByRole('button', { name: 'Save' }).isDisabled()) ? true : undefined), 10_000)
}
const advanced = () => page.getByRole('button', { name: /^Advanced/ })
const terminalText = (target: Locator) => target.locator('.xterm-rows').innerText()

async function openConfig(target: Page = page) {
  // A fresh load: the page's own state (the file chosen, a refusal shown) starts over.
  await target.goto(`${origin}/#/config`)
  await target.reload()
  await target.locator('[data-tier=core] form[data-key=default_program]').waitFor()
}

async function unfoldAdvanced() {
  if ((await advanced().getAttribute('aria-expanded')) !== 'true') await advanced().click()
  await row('daemon_poll_interval').waitFor()
}

describe.skipIf(!present)('the config page', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    ;({ daemon, repo } = await openSessionDaemon(homes, { settings: { network: { listen_addr: '127.0.0.1:0' } } }))
    origin = `http://${(await daemon.client.call('Health')).listeners.tcp_bound_addr}`
    await daemon.client.call('RegisterProject', { path: repo })
    browser = await launchChromium(await homes.make())
    page = await browser.newPage()
    await page.setViewportSize({ width: 1280, height: 800 })
    await logIn(page, origin, daemon.paths.token)
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await homes.release()
  })

  it('groups every key by tier with its purpose, source and value, the advanced tier folded', async () => {
    await openConfig()
    const { entries } = await daemon.client.call('GetConfig', {})
    const tiers = ['core', 'common', 'advanced'] as const
    const headings = tiers.map((tier) => `${tier[0]?.toUpperCase()}${tier.slice(1)} (${entries.filter((each) => each.tier_name === tier).length})`)
    expect(await page.locator('[data-tier] h2').allInnerTexts()).toEqual(headings)
    // Folded: its keys are not on the page until it is opened.
    expect(await advanced().getAttribute('aria-expanded')).toBe('false')
    expect(await row('daemon_poll_interval').count()).toBe(0)
    await advanced().click()
    await row('daemon_poll_interval').waitFor()
    for (const tier of tiers) {
      const keys = entries.filter((each) => each.tier_name === tier).map((each) => each.key)
      const forms = await page.locator(`[data-tier=${tier}] form[data-key]`).all()
      expect(await Promise.all(forms.map((form) => form.getAttribute('data-key')))).toEqual(keys)
    }
    const poll = row('daemon_poll_interval')
    expect(await poll.innerText()).toMatch(/How often panes are compared/)
    // The test kit's config.json sets it; limit_auto_resume is left at its default.
    expect(await poll.getByTestId('source').innerText()).toBe('set in config.json')
    expect(await row('limit_auto_resume').getByTestId('source').innerText()).toBe('default')
    expect(await poll.getByLabel('daemon_poll_interval', { exact: true }).inputValue()).toBe('200')
    expect(await poll.getByLabel('daemon_poll_interval unit').inputValue()).toBe('ms')
    // A repository's own key is shown, read-only, saying where it is set.
    const backend = row('backend')
    expect(await backend.getByRole('combobox').count()).toBe(0)
    expect(await backend.innerText()).toContain('A repository setting: choose the project above')
  })

  it('saves a switch, a number, a duration, a list, a map and text, each as the daemon then shows it', async () => {
    await openConfig()
    await unfoldAdvanced()

    const resume = page.getByRole('switch', { name: 'limit_auto_resume' })
    expect(await resume.getAttribute('aria-checked')).toBe('false')
    await resume.click()
    await holds('limit_auto_resume', 'true')
    await page.getByRole('switch', { name: 'limit_auto_resume', checked: true }).waitFor()
    await row('limit_auto_resume').getByTestId('source').filter({ hasText: 'set in config.json' }).waitFor()

    await page.getByLabel('log_max_size_mb', { exact: true }).fill('25')
    await saved('log_max_size_mb', '25')

    await page.getByLabel('limit_retry_interval', { exact: true }).fill('45')
    await page.getByLabel('limit_retry_interval unit').selectOption('s')
    await saved('limit_retry_interval', '45s')
    // The daemon's spelling comes back: 120 seconds are 2 minutes.
    await page.getByLabel('limit_retry_interval', { exact: true }).fill('120')
    await saved('limit_retry_interval', '2m')
    await waitFor(async () => ((await page.getByLabel('limit_retry_interval unit').inputValue()) === 'm' ? true : undefined))
    expect(await page.getByLabel('limit_retry_interval', { exact: true }).inputValue()).toBe('2')

    const origins = row('network.cors_allowed_origins')
    await origins.getByRole('button', { name: 'Add item' }).click()
    await page.getByLabel('network.cors_allowed_origins item 1', { exact: true }).fill('http://localhost:3000')
    await origins.getByRole('button', { name: 'Add item' }).click()
    await page.getByLabel('network.cors_allowed_origins item 2', { exact: true }).fill('https://app.example.com')
    await saved('network.cors_allowed_origins', '["http://localhost:3000","https://app.example.com"]')
    await origins.getByRole('button', { name: 'remove network.cors_allowed_origins item 1' }).click()
    await saved('network.cors_allowed_origins', '["https://app.example.com"]')

    const patterns = row('limit_patterns')
    await patterns.getByRole('button', { name: 'Add entry' }).click()
    await page.getByLabel('limit_patterns name 1', { exact: true }).fill('claude')
    await page.getByLabel('limit_patterns value 1', { exact: true }).fill('usage limit (reached|hit)')
    await saved('limit_patterns', '{"claude":"usage limit (reached|hit)"}')

    await page.getByLabel('branch_prefix', { exact: true }).fill('web/')
    await page.getByLabel('branch_prefix', { exact: true }).press('Enter')
    await holds('branch_prefix', 'web/')
    // Said where the field is (and as a toast): it waits for the next start.
    await row('branch_prefix').locator('.ok', { hasText: 'branch_prefix takes effect on the next daemon start' }).waitFor()
    await page.locator('[data-outcome=ok]', { hasText: 'branch_prefix takes effect on the next daemon start' }).first().waitFor()
  })

  it("edits a project's own file: a select of its closed words, and the global keys read-only", async () => {
    await openConfig()
    await page.getByLabel('Settings of').selectOption(repo)
    await page.getByTestId('config-file').filter({ hasText: '.svc/config.json' }).waitFor()
    const backend = page.getByLabel('backend', { exact: true })
    expect(await backend.locator('option').allTextContents()).toEqual(['local', 'hook', 'docker', 'ssh'])
    await backend.selectOption('hook')
    await holds('backend', 'hook', repo)
    expect((await entry('backend', repo)).source).toBe('repo')
    // config.json is untouched, and its own keys cannot be set from here.
    expect((await entry('backend')).value).toBe('local')
    expect(await row('network.listen_addr').getByRole('textbox').count()).toBe(0)
    expect(await row('network.listen_addr').innerText()).toContain('Set in config.json only')
  })

  it("shows the daemon's refusal beside the field that caused it, and changes nothing", async () => {
    await openConfig()
    await unfoldAdvanced()
    const poll = page.getByLabel('daemon_poll_interval', { exact: true })
    await poll.fill('50')
    await save('daemon_poll_interval')
    const refusal = row('daemon_poll_interval').getByRole('alert')
    await refusal.waitFor()
    expect(await refusal.innerText()).toMatch(/^daemon_poll_interval: expected a duration of at least 100ms/)
    // The field says so to a screen reader, and no other field shows it.
    const described = (await poll.getAttribute('aria-describedby'))?.split(' ') ?? []
    expect(described).toContain(await refusal.getAttribute('id'))
    expect(await poll.getAttribute('aria-invalid')).toBe('true')
    expect(await page.locator('form[data-key] [role=alert]').count()).toBe(1)
    expect((await entry('daemon_poll_interval')).value).toBe('200ms')

    // A list item the daemon refuses: the refusal sits under the list.
    const origins = row('network.cors_allowed_origins')
    await origins.getByRole('button', { name: 'Add item' }).click()
    await page.getByLabel('network.cors_allowed_origins item 2', { exact: true }).fill('not an origin')
    await save('network.cors_allowed_origins')
    await origins.getByRole('alert').filter({ hasText: 'is not an exact origin' }).waitFor()
    expect((await origins.getByRole('group').getAttribute('aria-describedby'))?.split(' ')).toContain(await origins.getByRole('alert').getAttribute('id'))
    expect((await entry('network.cors_allowed_origins')).value).toBe('["https://app.example.com"]')

    // A good value clears the refusal.
    await poll.fill('300')
    await save('daemon_poll_interval')
    await holds('daemon_poll_interval', '300ms')
    await row('daemon_poll_interval').getByRole('alert').waitFor({ state: 'detached' })
  })

  it("opens the config assistant's terminal on the page, follows its changes, and says when it ended", async () => {
    await openConfig()
    await page.getByRole('button', { name: 'Configure with assistant' }).click()
    const panel = page.getByTestId('assistant')
    // The fake agent answers its brief line by line: its screen is on the page.
    await waitFor(async () => ((await terminalText(panel)).includes('received:') ? true : undefined), 30_000)
    expect(await panel.getByRole('group', { name: 'config assistant terminal' }).count()).toBe(1)
    await waitFor(async () => ((await terminalText(panel)).includes('received: Now greet the user') ? true : undefined), 30_000)
    await panel.locator('.xterm-helper-textarea').focus()
    await page.keyboard.type('which key sets the agent?\r')
    await waitFor(async () => ((await terminalText(panel)).includes('received: which key sets the agent?') ? true : undefined))
    // A change the assistant makes (svc config set) shows among the keys while it talks.
    await daemon.client.call('SetConfigValue', { key: 'notify_command', value: 'notify-send svc' })
    await waitFor(async () => ((await page.getByLabel('notify_command', { exact: true }).inputValue()) === 'notify-send svc' ? true : undefined))

    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      await saveScreenshot(page, 'config', colorScheme, 1280)
    }
    await page.emulateMedia({ colorScheme: 'light' })

    // Closed: the keys take the page again.
    await panel.getByRole('button', { name: 'Close the config assistant' }).click()
    await panel.waitFor({ state: 'detached' })
    // Opened again: the same assistant, its conversation kept; it ends when reaped.
    await page.getByRole('button', { name: 'Configure with assistant' }).click()
    await waitFor(async () => ((await terminalText(panel)).includes('received: which key sets the agent?') ? true : undefined), 30_000)
    await daemon.client.configAssistant.reap()
    await waitFor(async () => ((await terminalText(panel)).includes('[the config assistant ended]') ? true : undefined))
  })

  it('fits a phone, in both themes', async () => {
    const phone = await browser.newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    await openConfig(phone)
    const box = await phone.locator('form[data-key=program_overrides]').boundingBox()
    expect(box?.width).toBeLessThanOrEqual(390)
    // Nothing wider than the screen: no sideways scrolling.
    expect(await phone.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
    for (const colorScheme of ['light', 'dark'] as const) {
      await phone.emulateMedia({ colorScheme })
      await saveScreenshot(phone, 'config', colorScheme, 390)
    }
    await phone.close()
  })
})
