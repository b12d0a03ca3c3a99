import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DaemonError } from '@svc/protocol'
import { envDump, FAKE_AGENT, makeRepo, record, runCli, startSessionDaemon, tempHomes, tmux, tmuxSessions, type TestDaemon } from '@svc/test-kit'

const homes = tempHomes()
let dir: string
let repo: string
let daemon: TestDaemon

/** Identity variables the daemon's own environment holds: no account-scoped pane may see them. */
const AMBIENT = {
  ANTHROPIC_API_KEY: 'sk-ant-ambient',
  ANTHROPIC_AUTH_TOKEN: 'ant-token-ambient',
  CLAUDE_CODE_OAUTH_TOKEN: 'oauth-ambient',
  OPENAI_API_KEY: 'sk-openai-ambient',
  CODEX_API_KEY: 'codex-key-ambient',
  CODEX_ACCESS_TOKEN: 'codex-access-ambient',
}

/** Each agent kind is the fake agent, writing its environment to a file named for the kind. */
const dumpOf = (kind: string) => join(dir, `${kind}.env.json`)
const program = (kind: string) => `node ${FAKE_AGENT} --env-dump ${dumpOf(kind)}`


async function dumpAfter(kind: string, action: () => Promise<unknown>): Promise<Record<string, string>> {
  await writeFile(dumpOf(kind), 'null')
  await action()
  return envDump(dumpOf(kind))
}

const mode = async (path: string) => (await stat(path)).mode & 0o777

beforeAll(async () => {
  dir = await homes.make()
  repo = await makeRepo(dir)
  daemon = await startSessionDaemon({
    home: join(dir, 'svc'),
    env: AMBIENT,
    settings: { program_overrides: { claude: program('claude'), codex: program('codex') } },
  })
}, 60_000)
afterAll(homes.release)

describe('accounts', () => {
  it('registers an account as a 0700 directory, idempotently, with unique names regardless of case', async () => {
    expect(await daemon.client.call('ListAccounts', {})).toEqual({ accounts: [], agents: ['claude', 'codex'] })
    expect(await daemon.client.call('RegisterAccount', { agent: 'claude', name: 'work' })).toEqual({ ok: true, created: true })
    expect(await daemon.client.call('RegisterAccount', { agent: 'claude', name: 'work' })).toEqual({ ok: true, created: false })
    const path = join(daemon.home, 'accounts', 'claude', 'work')
    for (const owned of [join(daemon.home, 'accounts'), join(daemon.home, 'accounts', 'claude'), path]) expect(await mode(owned)).toBe(0o700)

    const refused = async (body: { agent?: string; name?: string }, message: RegExp) => {
      const answer = await daemon.post('/v1/RegisterAccount', body)
      expect(answer.status).toBe(500)
      expect(answer.json).toEqual({ data: null, error: { message: expect.stringMatching(message), daemon_rejected: true } })
    }
    await refused({ agent: 'claude', name: 'WORK' }, /named "work" exists; account names are unique regardless of case/)
    await refused({ agent: 'claude', name: '-work' }, /account name "-work" is not usable/)
    await refused({ agent: 'claude', name: 'a'.repeat(65) }, /is not usable/)
    await refused({ agent: 'aider', name: 'work' }, /agent "aider" has no accounts; accounts are for claude, codex/)
    await refused({ agent: 'claude' }, /name is required/)
    // The same name under another agent is another account.
    expect((await daemon.client.call('RegisterAccount', { agent: 'codex', name: 'Work.2' })).created).toBe(true)
    expect(existsSync(join(daemon.home, 'accounts', 'claude', 'WORK'))).toBe(false)

    const listed = await daemon.client.call('ListAccounts', {})
    expect(listed.accounts).toEqual([
      { agent: 'claude', name: 'work', logged_in: false, path },
      { agent: 'codex', name: 'Work.2', logged_in: false, path: join(daemon.home, 'accounts', 'codex', 'Work.2') },
    ])
    expect((await daemon.client.call('ListAccounts', { agent: 'codex' })).accounts.map((account) => account.name)).toEqual(['Work.2'])
    // A session in this repository runs default_program (claude): its accounts.
    expect((await daemon.client.call('ListAccounts', { repo_path: repo })).accounts.map((account) => account.agent)).toEqual(['claude'])
  })

  it('reports logged in from the credential file\'s presence alone, never opening it', async () => {
    const path = join(daemon.home, 'accounts', 'claude', 'work')
    // A FIFO: opening it to read would block the daemon until a writer came, so an answer proves it was not opened.
    execFileSync('mkfifo', [join(path, '.credentials.json')])
    const answer = await daemon.client.call('ListAccounts', { agent: 'claude' })
    expect(answer.accounts).toEqual([{ agent: 'claude', name: 'work', logged_in: true, path }])
  })

  it('runs the login flow in a bare tmux session with the account home and without the ambient identity', async () => {
    const env = await dumpAfter('codex', async () => {
      const login = await daemon.client.call('AccountLogin', { agent: 'codex', name: 'personal' })
      expect(login).toMatchObject({ tmux_session: 'svc_login_codex_personal', tmux_socket: daemon.paths.tmuxSocket, logged_in: false })
      expect(login.attach_command).toBe(`tmux -S '${daemon.paths.tmuxSocket}' attach -t '=svc_login_codex_personal'`)
    })
    const home = join(daemon.home, 'accounts', 'codex', 'personal')
    expect(await mode(home)).toBe(0o700)
    expect(env.CODEX_HOME).toBe(home)
    for (const name of Object.keys(AMBIENT)) expect(env, name).not.toHaveProperty(name)
    expect(env.PATH).toBe(process.env.PATH)
    expect(tmuxSessions(daemon.home)).toContain('svc_login_codex_personal')
    // The agent's own login command, after its program_overrides command line.
    expect(tmux(daemon.home, 'display-message', '-p', '-t', '=svc_login_codex_personal:', '#{pane_start_command}')).toMatch(/--env-dump \S+ login/)
    // No session record: the login session is not a session.
    expect((await daemon.client.call('Snapshot', {})).instances).toEqual([])
  })

  it("streams the running login's terminal (the web UI's login), ending with it; none running is a 404", async () => {
    const login = record(await daemon.client.loginStream('codex', 'personal'))
    await login.until((frame) => frame.type === 'hello')
    await login.shows('fake-agent ready')
    login.frames.length = 0
    // Keys typed into the plane reach the login flow, and its answer comes back.
    const stream = await daemon.client.loginStream('codex', 'personal')
    stream.input('the code from the browser\r')
    await login.shows('received: the code from the browser')
    await login.shows('done')
    // The flow ends: its tmux session goes with it, and every subscriber gets the exit frame.
    stream.input('/exit\r')
    await login.until((frame) => frame.type === 'exit')
    await login.done
    stream.close()
    expect(tmuxSessions(daemon.home)).not.toContain('svc_login_codex_personal')

    // A flow that fails shows why, and ends when the watcher has read it.
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.codex', value: `node ${FAKE_AGENT} --fail-start` })
    await daemon.client.call('AccountLogin', { agent: 'codex', name: 'broken' })
    const failed = record(await daemon.client.loginStream('codex', 'broken'))
    await failed.shows('[the login exited with status 1; press Enter to close]')
    expect(failed.text()).toContain('fake-agent: failing at start')
    const reader = await daemon.client.loginStream('codex', 'broken')
    reader.input('\r')
    await failed.until((frame) => frame.type === 'exit')
    reader.close()
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.codex', value: program('codex') })

    const refused = (agent: string, name: string) => daemon.client.loginStream(agent, name).catch((error: DaemonError) => error)
    expect(await refused('codex', 'personal')).toMatchObject({
      status: 404,
      body: { message: 'no login is running for the codex account "personal"; AccountLogin starts one', daemon_rejected: true },
    })
    expect(await refused('aider', 'personal')).toMatchObject({ status: 400, message: expect.stringMatching(/agent "aider" has no accounts/) })
    expect(await refused('codex', '-x')).toMatchObject({ status: 400, message: expect.stringMatching(/account name "-x" is not usable/) })
  })

  it('scopes a session created with an account, and refuses an account of another agent', async () => {
    const scoped = await dumpAfter('codex', () =>
      daemon.client.call('CreateSession', { repo_path: repo, title: 'scoped', program: 'codex', account: 'personal' }),
    )
    expect(scoped.CODEX_HOME).toBe(join(daemon.home, 'accounts', 'codex', 'personal'))
    for (const name of Object.keys(AMBIENT)) expect(scoped, name).not.toHaveProperty(name)
    expect(scoped.SVC_SESSION_TITLE).toBe('scoped')

    // Without an account the agent keeps its own names from the daemon's environment.
    const plain = await dumpAfter('codex', () => daemon.client.call('CreateSession', { repo_path: repo, title: 'plain', program: 'codex' }))
    expect(plain.OPENAI_API_KEY).toBe(AMBIENT.OPENAI_API_KEY)
    expect(plain).not.toHaveProperty('CODEX_HOME')

    const mismatched = await daemon.post('/v1/CreateSession', { repo_path: repo, title: 'mismatched', program: 'claude', account: 'personal' })
    expect(mismatched.json.error.message).toMatch(/account "personal" is a codex account, and this session runs claude/)
    const unknown = await daemon.post('/v1/CreateSession', { repo_path: repo, title: 'unknown', program: 'claude', account: 'nobody' })
    expect(unknown.json.error.message).toMatch(/unknown claude account "nobody"/)
    const titles = (await daemon.client.call('Snapshot', {})).instances.map((instance) => instance.title)
    expect(titles).toEqual(['plain', 'scoped'])
  })

  it('is driven by svc accounts list, register and login', async () => {
    const env = { SERVICE_HOME: daemon.home }
    const registered = await runCli(['accounts', 'register', 'claude', 'side', '--json'], env)
    expect(JSON.parse(registered.stdout)).toEqual({ ok: true, created: true })
    const listed = JSON.parse((await runCli(['accounts', 'list', '--agent', 'claude', '--json'], env)).stdout)
    expect(listed.accounts.map((account: { name: string }) => account.name)).toEqual(['side', 'work'])
    // Not on a terminal: it starts the login and says how to attach.
    const login = await runCli(['accounts', 'login', 'claude', 'side'], env)
    expect(login.code).toBe(0)
    expect(JSON.parse(login.stdout)).toMatchObject({ tmux_session: 'svc_login_claude_side', logged_in: false })
    const bad = await runCli(['accounts', 'register', 'gemini', 'x'], env)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/agent "gemini" has no accounts/)
  })
})
