import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanup, runCli, tempDir, waitFor, type TestDaemon } from '@svc/test-kit'
import * as kit from '@svc/test-kit'
import { runInTerminal, TestTerminal } from './terminal.js'

// One daemon and one repository for the whole file: each step builds on the last, as a
// person's session would (create → prompts → tabs → archive → restore → kill).
let dir: string
let repo: string
let daemon: TestDaemon
let env: Record<string, string>

const tmux = (...args: string[]) => kit.tmux(daemon.home, ...args)
const tmuxSessions = () => kit.tmuxSessions(daemon.home)
const branches = () => kit.branches(repo)
const session = (title: string) => kit.session(daemon, title)
const agentOf = async (title: string) => (await session(title)).tabs[0]?.tmux_name as string
const paneShows = (tmuxName: string, text: string) => waitFor(() => kit.paneText(daemon.home, tmuxName).includes(text))

/** svc with pipes: it must succeed, and its stdout is JSON. */
async function json(...args: string[]): Promise<any> {
  const result = await runCli(args, env)
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout)
}

/** svc with pipes: it must exit 1 (the daemon refused) and say why. */
async function refused(args: string[], message: string): Promise<void> {
  const result = await runCli(args, env)
  expect(result.code, args.join(' ')).toBe(1)
  expect(result.stderr).toContain(message)
}

beforeAll(async () => {
  dir = await tempDir()
  repo = await kit.makeRepo(dir)
  daemon = await kit.startSessionDaemon({ home: join(dir, 'home') })
  env = { SERVICE_HOME: daemon.home }
})

afterAll(async () => {
  // cleanup also ends the daemon's tmux server, so agents left by a failed step do not outlive the test.
  await daemon.stop()
  await cleanup(dir)
})

describe('svc sessions, svc tabs over a real daemon', () => {
  it('creates a session in the current directory and delivers its first prompt', async () => {
    // The title as a new user types it: an argument (--title works too, below; both differing: cli.test.ts).
    const { code, out } = await runInTerminal(['sessions', 'create', 'fix-parser', '--prompt', 'parse trailing commas'], env, {
      cwd: repo,
    })
    expect(code, out).toBe(0)
    expect(out).toMatch(/^TITLE\s+STATE\s+IDLE\s+PROGRAM\s+BRANCH/m)
    expect(out).toMatch(/^fix-parser\s+(running|ready)\s+.*claude\s+agent\/fix-parser\s+repo\s+just now$/m)
    expect(out).toContain(`worktree: ${dir}/repo-fix-parser\n`)
    expect(out).toContain('fix-parser: prompt delivered\n')
    expect(existsSync(join(dir, 'repo-fix-parser'))).toBe(true)
    expect(branches()).toEqual(['agent/fix-parser', 'main'])
    await paneShows(await agentOf('fix-parser'), 'received: parse trailing commas')
  })

  it('lists sessions for people in a terminal: the project by name, times relative; JSON unchanged', async () => {
    const screen = new TestTerminal(dir)
    screen.run(['sessions', 'list'], env)
    await waitFor(() => screen.text().includes('attach exited 0') || undefined)
    const text = screen.text()
    screen.close()
    const { instances } = await json('sessions', 'list')
    const [listed] = instances
    expect(text).toMatch(/^TITLE\s+STATE\s+IDLE\s+PROGRAM\s+BRANCH\s+PROJECT\s+UPDATED$/m)
    expect(text).toMatch(/^fix-parser\s+(running|ready)\s+.*claude\s+agent\/fix-parser\s+repo\s+(just now|1m ago)$/m)
    expect(text).not.toContain(listed.repo_id)
    expect(text).not.toContain(listed.updated_at)
    // Scripts still get the id and the timestamp as the daemon sent them.
    expect(listed).toMatchObject({ title: 'fix-parser', repo_id: expect.stringMatching(/^[0-9a-f]{12}$/), repo_path: repo })
    expect(listed.updated_at).toBe((await session('fix-parser')).updated_at)
  })

  it('creates from --title-base in --repo, printing the session as JSON', async () => {
    const { instance } = await json('sessions', 'create', '--title-base', 'fix-parser', '--repo', repo)
    expect(instance).toMatchObject({ title: 'fix-parser-2', path: `${dir}/repo-fix-parser-2`, branch: 'agent/fix-parser-2' })
    expect(instance.last_prompt_delivery_status).toBeUndefined()
    expect((await json('sessions', 'list')).instances.map((each: { title: string }) => each.title)).toEqual(['fix-parser', 'fix-parser-2'])
    await Promise.all([
      refused(['sessions', 'create', '--title', 'fix-parser', '--repo', repo], 'a session titled "fix-parser" already exists'),
      refused(['sessions', 'create', '--backend', 'hook', '--repo', repo], 'backend "hook" is not available'),
    ])
  })

  it('sends a prompt and reports its delivery status', async () => {
    expect(await json('sessions', 'send', 'fix-parser', 'also', 'cover', 'empty', 'input')).toEqual({ ok: true, status: 'delivered' })
    await paneShows(await agentOf('fix-parser'), 'received: also cover empty input')
    const [terminal] = await Promise.all([
      runInTerminal(['sessions', 'send', 'fix-parser', '--', '-v please'], env),
      refused(['sessions', 'send', 'nope', 'hi'], 'no session titled "nope"'),
    ])
    expect(terminal).toEqual({ code: 0, out: 'fix-parser: prompt delivered\n' })
  })

  it('says plainly when a prompt was not seen (exit 0) or did not arrive (exit 4)', async () => {
    // One agent never shows its input; the other's composer keeps only the first characters.
    await Promise.all([
      json('sessions', 'create', '--title', 'mute', '--repo', repo, '--program', "sh -c 'stty -echo; exec cat >/dev/null'"),
      json('sessions', 'create', '--title', 'cut', '--repo', repo, '--program', `node ${kit.FAKE_AGENT} --truncate-echo 20`),
    ])
    // Keys pasted before the agent owns its terminal would be echoed whole by the tty.
    await paneShows(await agentOf('cut'), 'fake-agent ready')
    const [mute, cut] = await Promise.all([
      runInTerminal(['sessions', 'send', 'mute', 'hello'], env),
      runCli(['sessions', 'send', 'cut', 'summarise the open issues and propose an order to fix them'], env),
    ])
    expect(mute.code).toBe(0)
    expect(mute.out).toBe('mute: prompt sent but unverified: Enter was pressed, yet the pane did not show the exact prompt, or the agent did not show that it took it; look with: svc sessions attach mute\n')
    expect(cut.code).toBe(4)
    expect(JSON.parse(cut.stdout)).toEqual({ ok: true, status: 'not-delivered' })
    expect(cut.stderr).toContain('svc: cut: prompt NOT delivered')
    expect(await Promise.all([json('sessions', 'kill', 'mute'), json('sessions', 'kill', 'cut')])).toEqual([{ ok: true }, { ok: true }])
  })

  it('creates, lists, renames, moves and closes tabs', async () => {
    const agent = await agentOf('fix-parser')
    const shell = await json('tabs', 'create', 'fix-parser')
    expect(shell).toEqual({ id: expect.any(String), name: 'shell', tmux_name: `${agent}__shell` })
    expect(await json('tabs', 'create', 'fix-parser', '--command', 'sleep 600', '--name', 'sleeper')).toMatchObject({ name: 'sleeper' })
    const web = await json('tabs', 'create', 'fix-parser', '--port', '5173')
    // No TCP or preview listener here: no URL to open (svc-tabs-web.test.ts has them).
    expect(web).toEqual({ id: expect.any(String), name: 'web', urls: {} })
    expect(tmuxSessions()).toEqual(expect.arrayContaining([`${agent}__shell`, `${agent}__sleeper`]))

    const listed = await json('tabs', 'list', 'fix-parser')
    expect(listed.tabs.map((tab: { name: string; kind_name: string }) => `${tab.kind_name}:${tab.name}`)).toEqual([
      'agent:agent',
      'shell:shell',
      'process:sleeper',
      'web:web',
    ])

    expect(await json('tabs', 'rename', 'fix-parser', '--name', 'sleeper', 'dev server')).toEqual({ ok: true, name: 'dev-server' })
    expect(await json('tabs', 'move', 'fix-parser', '--tab-id', web.id, '1')).toEqual({ ok: true, name: 'web', index: 1 })
    const [table] = await Promise.all([
      runInTerminal(['tabs', 'list', 'fix-parser'], env),
      refused(['tabs', 'rename', 'fix-parser', '--name', 'shell', 'x'], 'only web, process and editor tabs can be renamed'),
      refused(['tabs', 'move', 'fix-parser', '--index', '1', '0'], 'new_index must be from 1 to 3'),
    ])
    expect(table.out).toMatch(/^INDEX\s+ID\s+KIND\s+NAME\s+TMUX\s+TARGET$/m)
    expect(table.out).toMatch(new RegExp(`^0\\s+\\S+\\s+agent\\s+agent\\s+${agent}$`, 'm'))
    expect(table.out).toMatch(/^1\s+\S+\s+web\s+web\s+http:\/\/localhost:5173 \(proxied\)$/m)
    expect(table.out).toMatch(/^3\s+\S+\s+process\s+dev-server\s+\S+__sleeper\s+sleep 600$/m)

    const closed = await runInTerminal(['tabs', 'close', 'fix-parser', '--index', '2'], env)
    expect(closed).toEqual({ code: 0, out: 'fix-parser: closed tab shell\n' })
    expect(tmuxSessions()).not.toContain(`${agent}__shell`)
    await Promise.all([
      refused(['tabs', 'close', 'fix-parser', '--tab-id', shell.id], `has no tab with id ${shell.id}`),
      refused(['tabs', 'close', 'fix-parser', '--index', '0'], 'the agent tab cannot be closed'),
      refused(['tabs', 'list', 'nope'], 'no session titled "nope"'),
    ])
  })

  it('archives a session and restores it', async () => {
    const { repo_id: repoId } = await session('fix-parser-2')
    const archived = await json('sessions', 'archive', 'fix-parser-2')
    expect(archived).toEqual({ ok: true, archived_path: join(daemon.home, 'archived', repoId, 'fix-parser-2') })
    expect(existsSync(archived.archived_path)).toBe(true)
    expect(existsSync(join(dir, 'repo-fix-parser-2'))).toBe(false)
    const [list, attach] = await Promise.all([
      runInTerminal(['sessions', 'list'], env),
      runInTerminal(['sessions', 'attach', 'fix-parser-2'], env),
      refused(['sessions', 'send', 'fix-parser-2', 'hi'], 'is archived'),
    ])
    expect(list.out).toMatch(/^fix-parser-2\s+archived\s/m)
    expect(attach.code).toBe(1)
    expect(attach.out).toContain('svc sessions restore-archived fix-parser-2')

    const restored = await runInTerminal(['sessions', 'restore-archived', 'fix-parser-2', '--repo-id', repoId], env)
    expect(restored).toEqual({ code: 0, out: `restored fix-parser-2 at ${dir}/repo-fix-parser-2\n` })
    expect((await session('fix-parser-2')).liveness_name).toMatch(/running|ready/)

    await Promise.all([
      refused(['sessions', 'restore', 'fix-parser-2'], 'pass force_reap'),
      refused(['sessions', 'restore', 'fix-parser-2', '--force-reap', '--expect-boot-id', 'stale'], 'the daemon restarted'),
      refused(['sessions', 'resume', 'fix-parser-2'], 'is not at a usage limit'),
    ])
    const { boot_id: bootId, id } = await session('fix-parser-2')
    expect(await json('sessions', 'restore', 'ignored-title', '--id', id, '--force-reap', '--expect-boot-id', bootId)).toEqual({ ok: true })
  })

  it('resumes a session parked at a usage limit', async () => {
    await json('sessions', 'send', 'fix-parser-2', '/limit')
    await waitFor(async () => (await session('fix-parser-2')).liveness_name === 'limit-reached')
    expect((await runInTerminal(['sessions', 'list', '--status', 'limit-reached'], env)).out).toMatch(/^fix-parser-2\s+limit-reached\s+usage-limit\s/m)
    expect(await runInTerminal(['sessions', 'resume', 'fix-parser-2'], env)).toEqual({ code: 0, out: 'resumed fix-parser-2\n' })
    await paneShows(await agentOf('fix-parser-2'), 'received: continue')
    expect((await session('fix-parser-2')).liveness_name).not.toBe('limit-reached')
  })

  it('delivers a prompt, creating the session the first time', async () => {
    const started = await runInTerminal(['sessions', 'deliver', 'docs', 'write', 'the', 'docs'], env, { cwd: repo })
    expect(started).toEqual({ code: 0, out: 'started docs: prompt delivered\n' })
    expect(await json('sessions', 'deliver', 'docs', '--repo', repo, 'and the changelog')).toEqual({ status: 'sent', delivery: 'delivered' })
    await paneShows(await agentOf('docs'), 'received: and the changelog')
  })

  it('attaches this terminal through the stream until Ctrl-\\ detaches; resizes follow; deferred prompts wait', async () => {
    const agent = await agentOf('fix-parser')
    const screen = new TestTerminal(dir)
    screen.run(['sessions', 'attach', 'fix-parser'], env)
    // The stream's pty is the daemon's tmux client; the test's terminal is a separate tmux server.
    await waitFor(() => tmux('list-clients', '-F', '#{session_name}').split('\n').includes(agent))
    await waitFor(() => screen.text().includes('fake-agent ready') || undefined)
    screen.keys('typed in the terminal', 'Enter')
    await waitFor(() => screen.text().includes('received: typed in the terminal') || undefined)
    await paneShows(agent, 'received: typed in the terminal')
    // The terminal's size is the agent's window size (the daemon's tmux shows no status line).
    screen.resize(100, 30)
    await waitFor(() => tmux('display-message', '-p', '-t', `=${agent}:`, '#{window_width}x#{window_height}').trim() === '100x30' || undefined)
    const deferred = await runInTerminal(['sessions', 'deliver', '--repo', repo, '--defer-while-attached', 'fix-parser', 'after you'], env)
    expect(deferred).toEqual({ code: 0, out: 'fix-parser: a terminal is attached; the prompt waits until it detaches\n' })
    screen.keys('C-\\')
    await waitFor(() => screen.text().includes('attach exited 0') || undefined)
    expect(screen.text()).toContain('[detached from fix-parser]')
    await paneShows(agent, 'received: after you')
    screen.close()
  })

  it('attaches to a daemon over its TCP listener with the token, without the local socket', async () => {
    await json('config', 'set', 'network.listen_addr', '127.0.0.1:0')
    const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
    const token = (await readFile(daemon.paths.token, 'utf8')).trim()
    const screen = new TestTerminal(dir)
    const remote = { SERVICE_HOME: join(dir, 'no-daemon-here'), SVC_URL: `http://${addr}`, SVC_TOKEN: token }
    screen.run(['sessions', 'attach', 'docs'], remote)
    await waitFor(() => screen.text().includes('received: and the changelog') || undefined)
    screen.keys('remote keys', 'Enter')
    await paneShows(await agentOf('docs'), 'received: remote keys')
    screen.keys('C-\\')
    await waitFor(() => screen.text().includes('attach exited 0') || undefined)
    expect(existsSync(join(dir, 'no-daemon-here'))).toBe(false)
    screen.close()
  })

  it('kills sessions: tmux sessions, worktrees and branches go', async () => {
    const [terminal, ...killed] = await Promise.all([
      runInTerminal(['sessions', 'kill', 'fix-parser'], env),
      json('sessions', 'kill', 'fix-parser-2'),
      json('sessions', 'kill', '--repo-id', (await session('docs')).repo_id, 'docs'),
    ])
    expect(terminal).toEqual({ code: 0, out: 'killed fix-parser\n' })
    expect(killed).toEqual([{ ok: true }, { ok: true }])
    expect((await json('sessions', 'list')).instances).toEqual([])
    expect(tmuxSessions()).toEqual([])
    expect(branches()).toEqual(['main'])
    for (const title of ['fix-parser', 'fix-parser-2', 'docs']) expect(existsSync(join(dir, `repo-${title}`))).toBe(false)
    await refused(['sessions', 'kill', 'fix-parser'], 'no session titled "fix-parser"')
  })

  it('lists programs and backends, and suggests a name', async () => {
    const [programs, programTable, backends, backendTable, name, nameLine] = await Promise.all([
      json('programs'),
      runInTerminal(['programs'], env),
      json('backends', '--repo', repo),
      runInTerminal(['backends'], env),
      json('sessions', 'suggest-name'),
      runInTerminal(['sessions', 'suggest-name'], env),
    ])
    expect(programs.default).toBe('claude')
    // claude runs the fake agent here (program_overrides): no profile reads its screens; codex is itself.
    expect(programs.programs).toContainEqual({ name: 'claude', available: true, profile: '' })
    expect(programs.programs).toContainEqual({ name: 'codex', available: expect.any(Boolean), profile: 'codex' })
    expect(programTable.out).toMatch(/^claude\s+yes\s+\(none: any screen\)$/m)
    expect(programTable.out).toMatch(/^gemini\s+(yes|no)\s+gemini$/m)
    expect(programTable.out).toContain('default: claude\n')
    expect(backends).toMatchObject({ default: 'local', backends: [{ name: 'local', status: 'available' }, { name: 'hook' }, { name: 'docker' }, { name: 'ssh' }] })
    expect(backendTable.out).toMatch(/^hook\s+unavailable\s+.*sets neither remote_hooks.provision_cmd nor remote_hooks.launch_cmd/m)
    expect(name.name).toMatch(/^[a-z]+-[a-z]+$/)
    expect(nameLine.out).toMatch(/^[a-z]+-[a-z]+\n$/)
  })
})
