import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Page, Route } from 'playwright-core'
import { deleteProjectWords, killWords, removeTaskWords } from '@svc/protocol'
import { AGENT, browserPresent, launchChromium, logIn, openSessionDaemon, saveScreenshot, session, tempHomes, waitFor, waitForSession, type TestDaemon } from '@svc/test-kit'

/**
 * The new-session dialog and the confirmations of destructive actions, in a real browser
 * against a real daemon: what they say, where the focus goes, and what they change.
 */
const present = browserPresent('dialogs.test.ts')
const homes = tempHomes()
let daemon: TestDaemon
let repo: string
let origin: string
let browser: BrowserContext
let page: Page

const dialog = () => page.getByRole('dialog', { name: 'New session' })
const titleField = () => dialog().getByRole('textbox', { name: 'Title' })
const titles = async () => (await daemon.client.call('Snapshot', {})).instances.map((instance) => instance.title)

/** Opens `#/new` afresh and waits for the dialog's project and program (its default) to be filled. */
async function openDialog(): Promise<void> {
  await page.goto(`${origin}/#/`)
  await page.reload()
  await page.locator('[data-testid=feed]', { hasText: 'live' }).waitFor()
  await page.goto(`${origin}/#/new`)
  await dialog().waitFor()
  await waitFor(async () => ((await dialog().getByLabel('Program').inputValue()) === 'claude' ? true : undefined))
}

/** Holds the page's SuggestSessionName request until `release()`, and tells the name the daemon then suggested. */
async function holdSuggestion(): Promise<{ release: () => void; suggested: Promise<string> }> {
  let release = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  let suggest: (name: string) => void = () => {}
  const suggested = new Promise<string>((resolve) => (suggest = resolve))
  const hold = async (route: Route) => {
    await released
    const response = await route.fetch()
    suggest(((await response.json()) as { data: { name: string } }).data.name)
    await route.fulfill({ response })
  }
  await page.route('**/v1/SuggestSessionName', hold, { times: 1 })
  return { release, suggested }
}

/** Creates the session the dialog describes, and waits until the page shows it. */
async function create(): Promise<string> {
  await dialog().getByRole('button', { name: 'Create session' }).click()
  await dialog()
    .waitFor({ state: 'detached', timeout: 45_000 })
    .catch(async (error: Error) => {
      throw new Error(`${error.message}\ndialog: ${await dialog().innerText()}`)
    })
  const id = decodeURIComponent(/^#\/session\/(.+)$/.exec(new URL(page.url()).hash)?.[1] ?? '')
  expect(id, page.url()).not.toBe('')
  return id
}

describe.skipIf(!present)('the web UI dialogs', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    ;({ daemon, repo } = await openSessionDaemon(homes, {
      settings: { network: { listen_addr: '127.0.0.1:0' }, program_overrides: { claude: AGENT, codex: AGENT } },
    }))
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

  it('opens the new-session dialog from #/new, labelled, keeping the focus inside, and Esc closes it', async () => {
    await openDialog()
    expect(await dialog().getAttribute('aria-describedby')).toBeTruthy()
    const inDialog = () => page.evaluate<boolean>(`Boolean(document.activeElement?.closest('[role=dialog]'))`)
    expect(await inDialog()).toBe(true)
    // Around every control and past the last one: Tab never leaves the dialog.
    const reached = new Set<string>()
    for (let press = 0; press < 14; press++) {
      await page.keyboard.press('Tab')
      expect(await inDialog(), `after ${press + 1} Tab presses`).toBe(true)
      reached.add(await page.evaluate<string>(`document.activeElement.getAttribute('aria-label') ?? document.activeElement.textContent ?? ''`))
    }
    expect(reached).toContain('Cancel')
    await page.keyboard.press('Escape')
    await dialog().waitFor({ state: 'detached' })
    // Closed, the address no longer says "new": back, reload or the header's New session button open it again.
    expect(new URL(page.url()).hash).toBe('#/')
    await page.locator('header').getByRole('button', { name: 'New session' }).click()
    await dialog().waitFor()
    await dialog().getByRole('button', { name: 'Cancel' }).click()
    await dialog().waitFor({ state: 'detached' })
    expect(await titles()).toEqual([])
  })

  it('creates a session with the program chosen in the dialog, and shows it', async () => {
    await openDialog()
    await dialog().getByLabel('Program').selectOption('codex')
    await titleField().fill('delta')
    await dialog().getByLabel('First prompt').fill('hello delta')
    const id = await create()
    await page.getByRole('heading', { level: 1, name: 'delta' }).waitFor()
    const created = await waitForSession(daemon, 'delta', (s) => s.liveness_name !== '')
    expect([created.id, created.repo_path, created.program]).toEqual([id, repo, 'codex'])
  })

  it('offers where the session runs as ListBackends says: an unavailable backend disabled with its reason, an ssh host to pick', async () => {
    await openDialog()
    const runs = dialog().getByLabel('Runs')
    expect(await runs.inputValue()).toBe('local')
    const hook = runs.locator('option[value=hook]')
    expect(await hook.isDisabled()).toBe(true)
    expect(await hook.innerText()).toMatch(/unavailable: .*sets neither remote_hooks.provision_cmd nor remote_hooks.launch_cmd/)
    expect(await dialog().getByLabel(/^Host/).count()).toBe(0)
    expect(await runs.locator('option[value=ssh]').innerText()).toMatch(/unavailable: no ssh_hosts are set/)
    // The ssh backend with two hosts, as the daemon lists it once ssh_hosts holds them: the create names the host picked.
    await page.route('**/v1/ListBackends', async (route) => {
      const response = await route.fetch()
      const listed = (await response.json()) as { data: { backends: Array<{ name: string }> } }
      const ssh = { name: 'ssh', status: 'available', label: 'ssh host', hosts: ['gpu-box', 'spare'] }
      listed.data.backends = listed.data.backends.map((backend) => (backend.name === 'ssh' ? ssh : backend))
      await route.fulfill({ response, json: listed })
    })
    await openDialog()
    await dialog().getByLabel('Runs').selectOption('ssh')
    expect(await dialog().getByLabel(/^Host/).inputValue()).toBe('gpu-box')
    await dialog().getByLabel(/^Host/).selectOption('spare')
    const asked = page.waitForRequest('**/v1/CreateSession')
    await dialog().getByRole('button', { name: 'Create session' }).click()
    expect((await asked).postDataJSON()).toMatchObject({ backend: 'ssh', host: 'spare' })
    // This daemon has no ssh backend: refused, and said so in the dialog.
    await dialog().getByText(/backend "ssh" is not available/).waitFor()
    await page.unroute('**/v1/ListBackends')
    expect(await titles()).not.toContain(await titleField().getAttribute('placeholder'))
  })

  it('keeps what the user typed in the title when the suggestion lands late: the suggestion is only the placeholder', async () => {
    const { release, suggested } = await holdSuggestion()
    await openDialog()
    // Typed, then cleared, before the suggestion arrives.
    await titleField().pressSequentially('ab')
    await titleField().press('Backspace')
    await titleField().press('Backspace')
    release()
    const name = await suggested
    await waitFor(async () => ((await titleField().getAttribute('placeholder')) === name ? true : undefined))
    expect(await titleField().inputValue()).toBe('')
    await titleField().pressSequentially('epsilon')
    expect(await titleField().inputValue()).toBe('epsilon')
    await create()
    expect(await titles()).toContain('epsilon')
    expect(await titles()).not.toContain(name)
  })

  it('names the session with the suggestion shown when the title is left empty', async () => {
    const { release, suggested } = await holdSuggestion()
    await openDialog()
    release()
    const name = await suggested
    await waitFor(async () => ((await titleField().getAttribute('placeholder')) === name ? true : undefined))
    expect(await dialog().innerText()).toContain(`Left empty, the session is named ${name}.`)
    const id = await create()
    expect((await session(daemon, name)).id).toBe(id)
  })

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const width of [1280, 390]) {
      it(`shows the dialog ${colorScheme} at ${width} px wide, all of it on the screen`, async () => {
        await page.emulateMedia({ colorScheme })
        await page.setViewportSize({ width, height: width > 600 ? 800 : 844 })
        await openDialog()
        await waitFor(async () => ((await titleField().getAttribute('placeholder')) ? true : undefined))
        const box = await dialog().boundingBox()
        expect(box && box.x >= 0 && box.x + box.width <= width, JSON.stringify(box)).toBe(true)
        await saveScreenshot(page, 'new-session', colorScheme, width)
        await page.keyboard.press('Escape')
        await dialog().waitFor({ state: 'detached' })
      })
    }
  }

  it('asks before a kill, saying what goes; Cancel keeps everything, confirming deletes it', async () => {
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize({ width: 1280, height: 800 })
    const delta = await waitForSession(daemon, 'delta', (s) => s.liveness_name === 'ready')
    await page.goto(`${origin}/#/session/${delta.id}`)
    await page.getByRole('button', { name: 'Kill' }).click()
    const question = page.getByRole('alertdialog', { name: 'Kill delta?' })
    await question.waitFor()
    // Its description names the worktree and the branch that go.
    const describedBy = (await question.getAttribute('aria-describedby')) as string
    expect(await page.locator(`[id="${describedBy}"]`).innerText()).toBe(killWords(delta))
    expect(killWords(delta)).toContain(`its worktree ${delta.path} and its branch ${delta.branch} are deleted`)
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Cancel')
    await question.getByRole('button', { name: 'Cancel' }).click()
    await question.waitFor({ state: 'detached' })
    expect((await session(daemon, 'delta')).id).toBe(delta.id)
    expect(existsSync(delta.path)).toBe(true)

    await page.getByRole('button', { name: 'Kill' }).click()
    await question.getByRole('button', { name: 'Yes, kill' }).click()
    await waitFor(async () => (!(await titles()).includes('delta') ? true : undefined), 30_000)
    expect(existsSync(delta.path)).toBe(false)
  })

  it('asks before removing a task, naming it and its schedule; Esc keeps it', async () => {
    const task = { name: 'nightly', cron_expr: '0 3 * * *', watch_cmd: '', prompt: 'nightly run', target_session: '', project_path: repo, enabled: true }
    await daemon.client.call('AddTask', { task })
    await page.goto(`${origin}/#/tasks`)
    await page.locator('[data-task=nightly]').getByRole('button', { name: 'Remove' }).click()
    const question = page.getByRole('alertdialog', { name: 'Remove the task nightly?' })
    expect(await question.innerText()).toContain(removeTaskWords(task))
    await page.keyboard.press('Escape')
    await question.waitFor({ state: 'detached' })
    expect((await daemon.client.call('ListTasks', {})).tasks.map((each) => each.name)).toEqual(['nightly'])
    await page.locator('[data-task=nightly]').getByRole('button', { name: 'Remove' }).click()
    await question.getByRole('button', { name: 'Yes, remove' }).click()
    await page.locator('[data-task=nightly]').waitFor({ state: 'detached' })
    expect((await daemon.client.call('ListTasks', {})).tasks).toEqual([])
  })

  it('asks before forgetting a project, naming the sessions it archives; Cancel keeps it', async () => {
    const sessions = (await daemon.client.call('Snapshot', {})).instances
    expect(sessions.length).toBeGreaterThan(0)
    await page.goto(`${origin}/#/projects`)
    await page.getByRole('button', { name: 'Forget' }).click()
    const question = page.getByRole('alertdialog', { name: `Forget the project ${repo}?` })
    const words = deleteProjectWords(repo, sessions)
    expect(words).toContain(`Its sessions ${sessions.map((each) => each.title).join(', ')} are archived`)
    await waitFor(async () => ((await question.innerText()).includes(words) ? true : undefined))
    await question.getByRole('button', { name: 'Cancel' }).click()
    await question.waitFor({ state: 'detached' })
    expect((await daemon.client.call('ListProjects', {})).projects.map((project) => project.root)).toEqual([repo])
    expect((await daemon.client.call('Snapshot', {})).instances.map((each) => each.liveness_name)).not.toContain('archived')
  })
})
