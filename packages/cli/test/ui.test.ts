import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  AGENT,
  alive,
  closeHookWorld,
  hookCalls,
  makeRepo,
  openHookWorld,
  paneText,
  placeLabel,
  remoteDirs,
  remoteOf,
  remotePid,
  runCli,
  session,
  startSessionDaemon,
  tempHomes,
  tmuxSessions,
  waitFor,
  waitForSession,
  type HookWorld,
  type TestDaemon,
} from '@svc/test-kit'
import { TestTerminal } from './terminal.js'

// One daemon and one repository for the file; each test opens `svc` (no arguments) in a
// real 80x24 terminal of its own, drives it with keys and reads the screen.
const homes = tempHomes()
let dir: string
let repo: string
let daemon: TestDaemon
let env: Record<string, string>
let screen: TestTerminal | undefined

const agentOf = async (title: string) => (await session(daemon, title)).tabs[0]?.tmux_name as string

/** The screen once it shows `text` (a string, or a pattern). */
function shows(text: string | RegExp, timeoutMs = 20_000): Promise<string> {
  const seen = (screenText: string) => (typeof text === 'string' ? screenText.includes(text) : text.test(screenText))
  return waitFor(() => {
    const now = screen?.text() ?? ''
    return seen(now) ? now : undefined
  }, timeoutMs).catch(() => {
    throw new Error(`the screen never showed ${String(text)}; it shows:\n${screen?.text() ?? ''}`)
  })
}

/** `svc` with no arguments in a fresh 80x24 terminal, once its list is up; `on` names another daemon's environment. */
async function openUi(on = env): Promise<void> {
  screen = new TestTerminal(dir)
  screen.run([], on)
  screen.resize(80, 24)
  await shows(/svc · \d+ sessions?.*live/)
}

beforeAll(async () => {
  dir = await homes.make()
  repo = await makeRepo(dir)
  daemon = await startSessionDaemon({ home: join(dir, 'svc') })
  env = { SERVICE_HOME: daemon.home }
  await daemon.client.call('RegisterProject', { path: repo })
  for (const title of ['alpha', 'bravo']) {
    await daemon.client.call('CreateSession', { title, repo_path: repo, prompt: `hello ${title}` })
  }
  await waitFor(async () => (await daemon.client.call('Snapshot', {})).instances.every((each) => each.liveness_name === 'ready') || undefined, 20_000)
}, 60_000)

afterEach(() => {
  screen?.close()
  screen = undefined
})

afterAll(() => homes.release())

describe('svc (the terminal UI)', () => {
  it('lists sessions by project at 80x24, previews the selected one, updates without a key, shows help and quits', async () => {
    await openUi()
    const first = await shows('received: hello alpha')
    const lines = first.split('\n')
    expect(lines.slice(0, 24).every((line) => line.length <= 80)).toBe(true)
    const group = lines.findIndex((line) => line.startsWith('repo (2)'))
    expect(lines[group + 1]).toMatch(/^ {2}● ready +alpha +done: your turn +claude +agent\/alpha +\d+s$/)
    expect(lines[group + 2]).toMatch(/bravo/)
    expect(first).toMatch(/── alpha ─+/)
    expect(first).toContain('q quit')

    // Live: a session made elsewhere appears, and the preview follows the pane, with no key pressed.
    await daemon.client.call('CreateSession', { title: 'charlie', repo_path: repo })
    await shows(/repo \(3\)[\s\S]*charlie/)
    await daemon.client.call('SendPrompt', { title: 'alpha', prompt: 'ping from elsewhere' })
    await shows('received: ping from elsewhere')

    // Moving down previews the next session.
    screen?.keys('j')
    await shows(/── bravo ─+[\s\S]*received: hello bravo/)

    screen?.keys('?')
    const help = await shows('Keys')
    expect(help).toMatch(/K +kill: delete the session, its worktree and branch/)
    expect(help).toMatch(/C +the config assistant: an agent that explains settings and changes them/)
    screen?.keys('x')
    // The footer shows under the help too: wait for the help itself to go, or 'q' may only close it.
    await waitFor(() => !screen?.text().includes('Press any key to go back') || undefined)
    screen?.keys('q')
    await shows('attach exited 0')
  }, 90_000)

  it('attaches to the agent through tmux, holding the status-poll lease, and comes back on detach', async () => {
    await openUi()
    await shows('── alpha ─')
    screen?.keys('Enter')
    await shows('fake-agent ready')
    await waitFor(() => !screen?.text().includes('⏎ attach') || undefined)
    screen?.keys('typed while attached', 'Enter')
    await shows('received: typed while attached')
    expect(paneText(daemon.home, await agentOf('alpha'))).toContain('received: typed while attached')
    // The lease: a prompt that defers to an attached person waits.
    const deferred = await daemon.client.call('DeliverPrompt', { title: 'alpha', repo_path: repo, prompt: 'after you', defer_while_attached: true })
    expect(deferred.deferred).toBe(true)
    screen?.keys('C-b', 'd')
    await shows('back from alpha (agent)')
    await shows('── alpha ─')
    // Lease released: the deferred prompt is delivered once the terminal is back.
    await waitFor(() => paneTextOf('alpha').then((text) => text.includes('received: after you') || undefined), 20_000)
  }, 90_000)

  it('creates a session, sends a prompt with its delivery status, and kills only after confirmation', async () => {
    const before = new Set((await daemon.client.call('Snapshot', {})).instances.map((each) => each.title))
    // The project's own default program, not the global one, is what a session gets when none is picked.
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.codex', value: AGENT })
    await daemon.client.call('SetConfigValue', { repo_path: repo, key: 'default_program', value: 'codex' })
    await openUi()
    screen?.keys('n')
    const form = await shows('New session')
    expect(form).toContain(`project   ‹ ${repo} ›`)
    expect(form).toContain(`program   (the project's default)`)
    expect(form).toContain(`runs      (the project's default)`)
    // project, suggested title, program, account, where it runs: as offered; then the first prompt.
    for (const _ of [1, 2, 3, 4, 5]) screen?.keys('Enter')
    await shows('› prompt')
    screen?.keys('the first task', 'Enter')
    const created = await shows(/created (\S+) on agent\/\S+/)
    const title = /created (\S+) on/.exec(created)?.[1] as string
    expect(before.has(title)).toBe(false)
    const made = await session(daemon, title)
    expect(made.program).toBe('codex')
    await daemon.client.call('UnsetConfigValue', { repo_path: repo, key: 'default_program' })
    await waitFor(() => paneTextOf(title).then((text) => text.includes('received: the first task') || undefined), 20_000)
    // The new session is selected.
    await shows(`── ${title} ─`)

    screen?.keys('p')
    await shows(`Prompt for ${title}`)
    screen?.keys('second task', 'Enter')
    await shows(`prompt to ${title}: delivered`)
    await waitFor(() => paneTextOf(title).then((text) => text.includes('received: second task') || undefined), 20_000)

    screen?.keys('K')
    const question = await shows(`Kill ${title}?`)
    expect(question.replace(/[│\s]+/g, ' ')).toContain(`its worktree ${made.path} and its branch ${made.branch} are deleted`)
    // Any key but y cancels, pressed once as soon as the question shows.
    screen?.keys('x')
    await shows(`── ${title} ─`)
    expect((await session(daemon, title)).id).toBe(made.id)

    screen?.keys('K')
    await shows(`Kill ${title}?`)
    screen?.keys('y')
    await shows(`killed ${title}`)
    expect((await daemon.client.call('Snapshot', {})).instances.map((each) => each.title)).not.toContain(title)
    expect(existsSync(made.path)).toBe(false)
    expect(screen?.text()).not.toMatch(new RegExp(`^ .*${title}`, 'm'))
  }, 120_000)

  it('hands a running session to another agent', async () => {
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.codex', value: AGENT })
    await daemon.client.call('SendPrompt', { title: 'bravo', prompt: '/busy 60' })
    await waitForSession(daemon, 'bravo', (s) => s.liveness_name === 'running')
    await openUi()
    screen?.keys('/')
    await shows('enter keeps, esc clears')
    screen?.keys('bravo', 'Enter')
    await shows(/filter: bravo[\s\S]*▶ running +bravo/)
    await waitFor(() => !screen?.text().includes('enter keeps') || undefined)
    screen?.keys('h')
    await shows(/to +‹ codex ›/)
    // to, account, brief: as offered.
    for (const _ of [1, 2, 3]) screen?.keys('Enter')
    await shows('handed bravo off to codex')
    const after = await session(daemon, 'bravo')
    expect([after.program, after.tabs[0]?.handoffs?.map((entry) => entry.from.program)]).toEqual(['codex', ['claude']])
    await waitFor(() => paneTextOf('bravo').then((text) => text.includes('received: It was interrupted mid-work') || undefined), 20_000)
  }, 90_000)

  it('opens the config assistant on C, attached through tmux, and comes back on detach', async () => {
    await openUi()
    await shows('── alpha ─')
    screen?.keys('C')
    // The assistant's pane: its brief's last line, as the fake agent received it.
    await shows('received: Now greet the user')
    await waitFor(() => !screen?.text().includes('⏎ attach') || undefined)
    screen?.keys('which key?', 'Enter')
    await shows('received: which key?')
    screen?.keys('C-b', 'd')
    await shows('back from the config assistant')
    // Not a session: the list is as it was, and the assistant runs on for the idle time.
    expect((await daemon.client.call('Snapshot', {})).instances.some((each) => each.title.startsWith('svc-config'))).toBe(false)
    expect(tmuxSessions(daemon.home).filter((name) => name.startsWith('svc-config-'))).toHaveLength(1)
  }, 90_000)

  it('shows the daemon refusing, and says reconnecting while the daemon restarts', async () => {
    await openUi()
    await shows('── alpha ─')
    // Restoring a live session is refused by the daemon: its message is shown as is.
    screen?.keys('r')
    await shows(/restoring alpha failed: .+/)
    await daemon.stop()
    await shows('reconnecting…', 15_000)
    daemon = await startSessionDaemon({ home: daemon.home })
    await shows(/svc · \d+ sessions.*live/, 30_000)
    await shows(/alpha/)
  }, 120_000)
})

// A daemon of its own: the hook world's repository has a trusted launch_cmd and delete_cmd.
describe(`a hook session in the terminal UI, its agent server ${placeLabel()}`, () => {
  const hookHomes = tempHomes()
  let world: HookWorld
  afterAll(async () => {
    await closeHookWorld(world)
    await hookHomes.release()
  })

  it('is created with the CLI, listed with its host, previewed, attached through the daemon, and killed after confirmation with its remote cleaned up', async () => {
    world = await openHookWorld(hookHomes)
    const hookEnv = { SERVICE_HOME: world.daemon.home }
    const created = await runCli(['sessions', 'create', 'tui-hook', '--backend', 'hook', '--repo', world.repo], hookEnv)
    expect(created.code, created.stderr).toBe(0)
    const pid = remotePid(world.state, 'tui-hook')
    await openUi(hookEnv)
    // At 80 columns the row shows program@ (the host truncated); the preview's heading says it whole.
    const listed = await shows(`── tui-hook · on ${world.place.address} ─`)
    expect(listed).toMatch(/^ {2}● \w+ +tui-hook +.*claude@/m)
    await shows('fake-agent ready')

    // Enter attaches through the daemon's terminal stream, relayed to the remote: its tmux is not the home's.
    expect(screen?.text()).toContain('⏎ attach (Ctrl-\\ back)')
    screen?.keys('Enter')
    await waitFor(() => !screen?.text().includes('⏎ attach') || undefined)
    await shows('fake-agent ready')
    screen?.keys('typed on the remote', 'Enter')
    await shows('received: typed on the remote')
    const remoteAgent = (await session(world.daemon, 'tui-hook')).tabs[0]?.tmux_name as string
    expect(paneText(remoteOf(world.state, 'tui-hook').home, remoteAgent)).toContain('received: typed on the remote')
    screen?.keys('C-\\')
    await shows('back from tui-hook (agent)')
    await shows(`── tui-hook · on ${world.place.address} ─`)
    // The tabs view's agent tab goes the same way.
    screen?.keys('t')
    await shows('enter attach (Ctrl-\\ back)')
    screen?.keys('Enter')
    await waitFor(() => !screen?.text().includes('Tabs of tui-hook') || undefined)
    await shows('received: typed on the remote')
    screen?.keys('C-\\')
    await shows(/back from tui-hook \(agent\)[\s\S]*── tui-hook · on /)

    screen?.keys('K')
    const question = await shows('Kill tui-hook?')
    expect(question.replace(/[│\s]+/g, ' ')).toContain(`its session on ${world.place.address} is ended, the repository's delete_cmd is run`)
    screen?.keys('y')
    await shows('killed tui-hook', 30_000)
    expect((await world.daemon.client.call('Snapshot', {})).instances).toEqual([])
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'tui-hook']) })
    expect(alive(pid)).toBe(false)
    expect(remoteDirs(world.state)).toEqual([])
  }, 120_000)
})

async function paneTextOf(title: string): Promise<string> {
  return paneText(daemon.home, await agentOf(title))
}
