import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Locator, Page } from 'playwright-core'
import {
  AGENT,
  alive,
  browserPresent,
  closeHookWorld,
  hookCalls,
  launchChromium,
  logIn,
  openHookWorld,
  openSessionDaemon,
  paneText,
  placeLabel,
  remoteDirs,
  remoteOf,
  remotePid,
  runCli,
  send,
  session,
  startDaemon,
  startSessionDaemon,
  tempHomes,
  waitFor,
  waitForSession,
  type HookWorld,
  type TestDaemon,
} from '@svc/test-kit'

/** The web UI in a real browser against a real daemon, logged in by the URL `svc web` prints. */
const present = browserPresent('web-ui.test.ts')
const homes = tempHomes()
let daemon: TestDaemon
let repo: string
let origin: string
let browser: BrowserContext
let page: Page
let devServer: Server

/** The text of the page's terminal, as xterm draws it. */
const terminalText = (target: Page | Locator) => target.locator('.xterm-rows').innerText()

// Each step waits on a real daemon, agent and browser: generous on a loaded machine.
describe.skipIf(!present)('the web UI', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    ;({ daemon, repo } = await openSessionDaemon(homes, { settings: { network: { listen_addr: '127.0.0.1:0' } } }))
    const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
    origin = `http://${addr}`
    await daemon.client.call('RegisterProject', { path: repo })
    await daemon.client.call('CreateSession', { repo_path: repo, title: 'alpha', program: 'claude' })
    await waitForSession(daemon, 'alpha', (s) => s.liveness_name === 'ready')
    browser = await launchChromium(await homes.make())
    page = await browser.newPage()
  }, 60_000)
  afterAll(async () => {
    devServer?.close()
    await browser?.close()
    await homes.release()
  })

  it('refuses the page without the token, and logs in by the URL with it', async () => {
    const refused = await page.goto(`${origin}/`)
    expect(refused?.status()).toBe(401)
    const loggedIn = await logIn(page, origin, daemon.paths.token)
    expect(loggedIn?.status()).toBe(200)
    expect(page.url()).toBe(`${origin}/`)
    await page.locator('[data-testid=feed]', { hasText: 'live' }).waitFor()
  })

  it('shows the fleet, and a session created elsewhere appears without a reload', async () => {
    await page.locator('[data-session=alpha]').waitFor()
    expect(await page.locator('[data-session=alpha]').innerText()).toContain('ready')
    await daemon.client.call('CreateSession', { repo_path: repo, title: 'beta', program: 'claude' })
    await page.locator('[data-session=beta]').waitFor()
  })

  it('shows the agent in the session terminal and types into it', async () => {
    await page.locator('[data-session=alpha]').click()
    await waitFor(async () => (await terminalText(page)).includes('fake-agent ready') || undefined)
    await page.locator('.xterm-helper-textarea').focus()
    await page.keyboard.type('typed in the browser\r')
    const pane = (await session(daemon, 'alpha')).tabs[0]?.tmux_name as string
    await waitFor(() => paneText(daemon.home, pane).includes('received: typed in the browser') || undefined)
    await waitFor(async () => (await terminalText(page)).includes('received: typed in the browser') || undefined)
  })

  it('sends a prompt and shows its delivery status', async () => {
    await page.getByRole('textbox', { name: 'prompt for alpha' }).fill('from the prompt box')
    await page.locator('[data-testid=prompt]').getByRole('button', { name: 'Send' }).click()
    await page.locator('[data-testid=prompt] .ok', { hasText: /^Prompt / }).waitFor()
    const pane = (await session(daemon, 'alpha')).tabs[0]?.tmux_name as string
    await waitFor(() => paneText(daemon.home, pane).includes('received: from the prompt box') || undefined)
  })

  it("creates a session from the new-session dialog, with the project's default program", async () => {
    // The repository's .svc/config.json names codex: the form offers it, not the global claude.
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.codex', value: AGENT })
    await daemon.client.call('SetConfigValue', { repo_path: repo, key: 'default_program', value: 'codex' })
    await page.goto(`${origin}/#/new`)
    const dialog = page.getByRole('dialog', { name: 'New session' })
    const title = dialog.locator('label', { hasText: 'Title' }).locator('input')
    await waitFor(async () => ((await title.getAttribute('placeholder')) ? true : undefined))
    const program = dialog.locator('label', { hasText: 'Program' }).locator('select')
    await waitFor(async () => ((await program.inputValue()) === 'codex' ? true : undefined))
    await title.fill('gamma')
    await dialog.locator('label', { hasText: 'First prompt' }).locator('textarea').fill('hello gamma')
    await dialog.getByRole('button', { name: 'Create session' }).click()
    // The session's page, or the daemon's refusal in the dialog: either ends the wait, and says which.
    await page
      .getByRole('heading', { level: 1, name: 'gamma' })
      .or(dialog.locator('.error'))
      .waitFor({ timeout: 45_000 })
      .catch(async (error: Error) => {
        // What the page and the daemon say then tells a stuck request from a page that missed the session.
        const known = (await daemon.client.call('Snapshot', {})).instances.some((s) => s.title === 'gamma')
        throw new Error(`${error.message}\npage: ${await page.locator('body').innerText()}\ndaemon has gamma: ${known}`)
      })
    expect(await dialog.count(), await page.locator('body').innerText()).toBe(0)
    const created = await waitForSession(daemon, 'gamma', (s) => s.liveness_name !== '')
    expect([created.repo_path, created.program]).toEqual([repo, 'codex'])
    await daemon.client.call('UnsetConfigValue', { repo_path: repo, key: 'default_program' })
  })

  it('creates a cron task, previews its schedule, and triggers it into a session', async () => {
    await page.goto(`${origin}/#/tasks`)
    await page.getByRole('button', { name: 'New task' }).click()
    await page.locator('label', { hasText: 'Name' }).locator('input').fill('nightly')
    await page.locator('label', { hasText: 'Cron expression' }).locator('input').fill('0 3 * * *')
    expect(await page.locator('[data-testid=schedule-preview]').innerText()).toBe('At 03:00')
    await page.locator('label', { hasText: 'Session' }).locator('select').selectOption('alpha')
    await page.locator('label', { hasText: 'Prompt' }).locator('textarea').fill('nightly run')
    await page.getByRole('button', { name: 'Add task' }).click()
    const row = page.locator('[data-task=nightly]')
    await row.waitFor()
    await row.getByRole('button', { name: 'Trigger' }).click()
    const pane = (await session(daemon, 'alpha')).tabs[0]?.tmux_name as string
    await waitFor(() => paneText(daemon.home, pane).includes('received: nightly run') || undefined, 20_000)
  })

  it('frames a web tab showing a dev server through the daemon', async () => {
    devServer = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>the dev server</h1>'))
    await new Promise<void>((resolve) => devServer.listen(0, '127.0.0.1', resolve))
    const port = (devServer.address() as { port: number }).port
    await daemon.client.call('CreateTab', { title: 'alpha', kind: 'web', name: 'app', port })
    const alpha = await session(daemon, 'alpha')
    await page.goto(`${origin}/#/session/${alpha.id}`)
    await page.getByRole('tab', { name: 'app' }).click()
    await page.frameLocator('[data-testid=web-tab]').locator('h1', { hasText: 'the dev server' }).waitFor()
  })

  it('logs an account in through its login terminal, and shows it logged in when the flow ends', async () => {
    await daemon.client.call('RegisterAccount', { agent: 'claude', name: 'work' })
    await page.goto(`${origin}/#/accounts`)
    const account = page.locator('li', { hasText: 'claude / work' })
    await page.locator('li', { hasText: 'claude / work: not logged in' }).waitFor()
    await account.getByRole('button', { name: 'Log in' }).click()
    const login = page.locator('[data-testid=login]')
    // The agent's own login flow (the fake agent here), in the browser; the code typed reaches it.
    await waitFor(async () => (await terminalText(login)).includes('fake-agent ready') || undefined)
    await login.locator('.xterm-helper-textarea').focus()
    await page.keyboard.type('code-from-the-browser\r')
    await waitFor(() => paneText(daemon.home, 'svc_login_claude_work').includes('received: code-from-the-browser') || undefined)
    await waitFor(() => paneText(daemon.home, 'svc_login_claude_work').includes('done') || undefined)
    // The flow writes the credential and ends: the terminal says so and the list follows.
    await writeFile(join(daemon.home, 'accounts', 'claude', 'work', '.credentials.json'), '{}')
    await page.keyboard.type('/exit\r')
    await waitFor(async () => (await terminalText(login)).includes('[the login ended]') || undefined)
    await page.locator('li', { hasText: 'claude / work: logged in' }).waitFor()

    // A flow over before the page could watch it: the page says so instead of waiting forever.
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.claude', value: 'true' })
    await account.getByRole('button', { name: 'Log in' }).click()
    await waitFor(async () => (await terminalText(login)).includes('[the login is not running (it may have ended already)]') || undefined, 20_000)
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.claude', value: AGENT })
  })

  it('badges a session that needs the user until it is opened, and raises an opted-in notification from a background tab', async () => {
    const background = await browser.newPage()
    // A tab in the background, whose notifications are recorded as they are raised.
    await background.addInitScript(`
      Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' })
      window.raised = []
      window.Notification = class extends window.Notification {
        constructor(title, options) {
          super(title, options)
          window.raised.push(title)
        }
      }
    `)
    await browser.grantPermissions(['notifications'], { origin })
    await background.goto(`${origin}/`)
    await page.goto(`${origin}/`)
    await page.locator('[data-testid=feed]', { hasText: 'live' }).waitFor()
    await background.locator('[data-testid=feed]', { hasText: 'live' }).waitFor()

    // beta works on a prompt and settles: it needs the user.
    await daemon.client.call('SendPrompt', { title: 'beta', prompt: 'work then wait' })
    const row = page.locator('[data-session=beta]')
    await row.locator('[data-attention]', { hasText: 'needs you' }).waitFor({ timeout: 30_000 })
    await page.locator('[data-testid=needs-you]', { hasText: /^[1-9]\d* needs? you$/ }).waitFor()
    await waitFor(async () => {
      const raised = await background.evaluate<string[]>('window.raised')
      return raised.includes('svc: beta finished working') || undefined
    })
    // Opening it is seeing it.
    await row.click()
    await page.getByRole('heading', { level: 1, name: 'beta' }).waitFor()
    await page.goto(`${origin}/#/`)
    await page.locator('[data-session=beta]').waitFor()
    expect(await page.locator('[data-session=beta] [data-attention]').count()).toBe(0)
    await background.close()
  })

  it('hands a running session over to another agent', async () => {
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.codex', value: AGENT })
    await daemon.client.call('SendPrompt', { title: 'beta', prompt: '/busy 60' })
    const beta = await waitForSession(daemon, 'beta', (s) => s.liveness_name === 'running')
    await page.goto(`${origin}/#/session/${beta.id}`)
    await page.locator('[data-session-pane] [data-state=running]').waitFor()
    const handoff = page.locator('[data-testid=handoff]')
    await handoff.getByLabel('hand off to').selectOption('codex')
    await handoff.getByRole('button', { name: 'Hand off' }).click()
    await handoff.locator('.ok', { hasText: 'handed off to codex' }).waitFor()
    expect((await session(daemon, 'beta')).tabs[0]?.handoffs?.map((entry) => [entry.from.program, entry.to.program])).toEqual([['claude', 'codex']])
    await page.locator('[data-testid=session-meta]', { hasText: 'codex' }).waitFor()
  })

  it('fits a phone: the session terminal and the key row at 390×844', async () => {
    const phone = await browser.newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    const alpha = await session(daemon, 'alpha')
    await phone.goto(`${origin}/#/session/${alpha.id}`)
    // The agent's latest output: the top of a long screen may have scrolled away at the phone's size.
    await waitFor(async () => (await terminalText(phone)).includes('received: nightly run') || undefined, 20_000)
    const terminal = await phone.locator('[data-testid=terminal]').boundingBox()
    expect(terminal?.width).toBeGreaterThan(300)
    expect(terminal?.width).toBeLessThanOrEqual(390)
    const keys = phone.getByRole('toolbar', { name: 'terminal keys' })
    expect(await keys.isVisible()).toBe(true)
    const shot = await phone.screenshot({ path: '/tmp/web-phone.png' })
    expect(shot.length).toBeGreaterThan(1000)
    await phone.close()
  })

  it('says reconnecting while the daemon restarts, and is live again with what changed meanwhile', async () => {
    await page.goto(`${origin}/`)
    const feed = page.locator('[data-testid=feed]')
    await feed.filter({ hasText: 'live' }).waitFor()
    await daemon.stop()
    await feed.filter({ hasText: 'reconnecting' }).waitFor()
    // A banner says so at the top, in a live region, and goes once the feed is back.
    const banner = page.getByRole('status').filter({ hasText: 'Reconnecting to the daemon…' })
    await banner.waitFor()
    // Back on the same address (the login cookie holds); the sessions ran on in tmux meanwhile.
    daemon = await startSessionDaemon({ home: daemon.home, settings: { network: { listen_addr: origin.replace('http://', '') } } })
    await feed.filter({ hasText: 'live' }).waitFor({ timeout: 30_000 })
    await banner.waitFor({ state: 'detached' })
    await daemon.client.call('CreateSession', { repo_path: repo, title: 'after-restart', program: 'claude' })
    await page.locator('[data-session=after-restart]').waitFor()
    expect(await page.locator('[data-session=alpha]').count()).toBe(1)
  })
})

// A daemon of its own: the hook world's repository has a trusted launch_cmd and delete_cmd.
describe.skipIf(!present)(`a hook session in the web UI, its agent server ${placeLabel()}`, { timeout: 90_000 }, () => {
  const hookHomes = tempHomes()
  let world: HookWorld
  let context: BrowserContext
  afterAll(async () => {
    await context?.close()
    await closeHookWorld(world)
    await hookHomes.release()
  })

  it('is created with the CLI, shown with its host, typed into in the browser, and killed with its remote cleaned up', async () => {
    world = await openHookWorld(hookHomes, { settings: { network: { listen_addr: '127.0.0.1:0' } } })
    const created = await runCli(['sessions', 'create', 'web-hook', '--backend', 'hook', '--repo', world.repo], { SERVICE_HOME: world.daemon.home })
    expect(created.code, created.stderr).toBe(0)
    const addr = (await world.daemon.client.call('Health')).listeners.tcp_bound_addr
    context = await launchChromium(await hookHomes.make())
    const remotePage = await context.newPage()
    await logIn(remotePage, `http://${addr}`, world.daemon.paths.token)
    const row = remotePage.locator('[data-session=web-hook]')
    await row.locator('[data-remote=reachable]', { hasText: `on ${world.place.address}` }).waitFor()
    expect(await row.locator('[data-remote=unreachable]').count()).toBe(0)

    // Its terminal is the remote pane, through the home daemon's stream.
    await row.click()
    await remotePage.locator('[data-testid=session-meta]', { hasText: `on ${world.place.address}` }).waitFor()
    await waitFor(async () => (await terminalText(remotePage)).includes('fake-agent ready') || undefined, 30_000)
    await remotePage.locator('.xterm-helper-textarea').focus()
    await remotePage.keyboard.type('typed to the remote\r')
    await waitFor(async () => (await terminalText(remotePage)).includes('received: typed to the remote') || undefined)
    const remote = remoteOf(world.state, 'web-hook')
    const pane = (await session(world.daemon, 'web-hook')).tabs[0]?.tmux_name as string
    expect(paneText(remote.home, pane)).toContain('received: typed to the remote')

    const pid = remotePid(world.state, 'web-hook')
    await remotePage.getByRole('button', { name: 'Kill' }).click()
    const question = remotePage.getByRole('alertdialog')
    expect(await question.innerText()).toContain(`its session on ${world.place.address} is ended, the repository's delete_cmd is run`)
    await question.getByRole('button', { name: 'Yes, kill' }).click()
    await remotePage.locator('.empty', { hasText: 'This session no longer exists.' }).waitFor({ timeout: 30_000 })
    expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'web-hook']) })
    expect(alive(pid)).toBe(false)
    expect(remoteDirs(world.state)).toEqual([])
  })
})

describe('without a built web UI', () => {
  it('answers / with a page saying how to build it, and the API still works', async () => {
    const plain = await startDaemon({ home: await homes.make(), env: { SVC_WEB_ROOT: '/nonexistent' } })
    const reply = await send(plain.socket, 'GET', '/')
    expect(reply.status).toBe(200)
    expect(reply.headers['content-type']).toMatch(/^text\/html/)
    expect(reply.text).toContain('pnpm build')
    expect((await plain.client.call('Health')).ok).toBe(true)
    await plain.stop()
  })
})
