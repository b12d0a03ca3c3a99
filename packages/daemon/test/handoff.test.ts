import { existsSync } from 'node:fs'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  envDump,
  FAKE_AGENT,
  git,
  logShowing,
  makeRepo,
  recordEvents,
  runCli,
  session,
  startSessionDaemon,
  tempHomes,
  tmux,
  waitFor,
  waitForSession,
  type TestDaemon,
} from '@svc/test-kit'

const homes = tempHomes()
afterAll(homes.release)

/** The agent's pane with its scroll-back: a brief is longer than the screen. */
const history = (daemon: TestDaemon, tmuxName: string) => tmux(daemon.home, 'capture-pane', '-p', '-J', '-S', '-3000', '-t', `=${tmuxName}:`)
/** The pane once the agent has read the brief's last line (it reads a line at a time). */
const briefRead = (daemon: TestDaemon, tmuxName: string) =>
  waitFor(() => {
    const text = history(daemon, tmuxName)
    return text.includes('received: Do not start over') ? text : undefined
  }, 30_000)
const panePid = (daemon: TestDaemon, tmuxName: string) => tmux(daemon.home, 'display-message', '-p', '-t', `=${tmuxName}:`, '#{pane_pid}').trim()
const startCommand = (daemon: TestDaemon, tmuxName: string) =>
  tmux(daemon.home, 'display-message', '-p', '-t', `=${tmuxName}:`, '#{pane_start_command}')


/** Two agent kinds, each the fake agent writing its environment to its own file. */
function agents(dir: string, codexFlags = '') {
  return {
    claudeDump: join(dir, 'claude.env.json'),
    codexDump: join(dir, 'codex.env.json'),
    overrides: {
      claude: `node ${FAKE_AGENT} --env-dump ${join(dir, 'claude.env.json')}`,
      codex: `node ${FAKE_AGENT} --env-dump ${join(dir, 'codex.env.json')} ${codexFlags}`.trim(),
    },
  }
}

const commit = (path: string, message: string) => git(path, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-am', message)

describe('HandoffSession', () => {
  let dir: string
  let repo: string
  let daemon: TestDaemon
  let kinds: ReturnType<typeof agents>
  const mute = () => join(dir, 'mute')

  beforeAll(async () => {
    dir = await homes.make()
    repo = await makeRepo(dir)
    kinds = agents(dir, `--mute-while ${join(dir, 'mute')}`)
    daemon = await startSessionDaemon({
      home: join(dir, 'svc'),
      env: { OPENAI_API_KEY: 'sk-openai-ambient', CODEX_API_KEY: 'codex-ambient' },
      settings: { program_overrides: kinds.overrides },
    })
  }, 60_000)

  it('hands a session at its usage limit to another agent in place, with a brief from the real branch', { timeout: 90_000 }, async () => {
    const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'parser', prompt: 'make the parser accept trailing commas' })
    await waitForSession(daemon, 'parser', (s) => s.liveness_name === 'ready')
    await writeFile(join(instance.path, 'parser.txt'), 'commas\n')
    git(instance.path, 'add', 'parser.txt')
    commit(instance.path, 'parser: accept trailing commas in arrays')
    await writeFile(join(instance.path, 'notes.md'), 'half done\n')
    await daemon.client.call('SendPrompt', { title: 'parser', prompt: '/limit' })
    const parked = await waitForSession(daemon, 'parser', (s) => s.liveness_name === 'limit-reached')
    expect(parked.can_handoff).toBe(true)
    const tmuxName = instance.tabs[0]?.tmux_name as string
    const claudePid = panePid(daemon, tmuxName)

    const feed = await recordEvents(daemon.client)
    const answer = await daemon.client.call('HandoffSession', { title: 'parser', to: 'codex' })
    // Subscribers hear of the new agent as Snapshot shows it.
    const announced = await feed.next('session.updated', (frame) => frame.data.id === instance.id && frame.data.program === 'codex')
    feed.close()
    expect(announced.data.tabs[0]?.handoffs).toHaveLength(1)
    const head = git(instance.path, 'rev-parse', 'HEAD').trim()
    expect(answer).toEqual({ ok: true, from: { program: 'claude', account: '' }, to: { program: 'codex', account: '' }, head_sha: head })

    const after = await session(daemon, 'parser')
    expect(after).toMatchObject({ id: instance.id, path: instance.path, branch: 'agent/parser', program: 'codex', account: '' })
    expect(after.tabs[0]?.tmux_name).toBe(tmuxName)
    expect(after.tabs[0]?.handoffs).toEqual([{ from: answer.from, to: answer.to, at: expect.any(String), head_sha: head, reason: 'usage-limit' }])
    expect(after).not.toHaveProperty('mission_pending')
    expect(after.liveness_name).not.toBe('limit-reached')
    // A new agent process, of the other kind, in the same tmux session.
    expect(panePid(daemon, tmuxName)).not.toBe(claudePid)
    expect(startCommand(daemon, tmuxName)).toContain(kinds.codexDump)
    expect((await envDump(kinds.codexDump)).SVC_SESSION_ID).toBe(instance.id)
    expect(existsSync(instance.path)).toBe(true)

    const pane = await briefRead(daemon, tmuxName)
    expect(pane).toContain('received: Goal: make the parser accept trailing commas')
    expect(pane).toContain('received: The previous agent, claude, stopped because it hit its usage limit; you are codex.')
    expect(pane).toContain(`received: Branch: agent/parser in ${instance.path}, at ${head.slice(0, 12)}`)
    expect(pane).toMatch(/received: {3}[0-9a-f]{7,} parser: accept trailing commas in arrays/)
    expect(pane).toContain('received:   ?? notes.md')
    expect(pane).toContain(`received:   git diff ${instance.worktree.base_sha.slice(0, 12)}..HEAD`)
    expect(pane).toContain('received: Do not start over')
    await waitForSession(daemon, 'parser', (s) => s.liveness_name === 'ready' && s.can_handoff)
  })

  /** The daemon's refusal of a HandoffSession body, as a 500 envelope. */
  const refusal = async (body: Record<string, unknown>) => {
    const answer = await daemon.post('/v1/HandoffSession', body)
    expect(answer.status).toBe(500)
    expect(answer.json.error.daemon_rejected).toBe(true)
    return answer.json.error.message as string
  }

  it('refuses a handoff that names nothing new, an unknown agent or a stopped session', { timeout: 60_000 }, async () => {
    const before = await session(daemon, 'parser')
    expect(await refusal({ title: 'parser', to: 'nope' })).toMatch(/unknown agent "nope" in to; one of claude, codex/)
    expect(await refusal({ title: 'parser', to: 'codex' })).toMatch(/already runs codex; name another agent or account/)
    expect(await refusal({ title: 'parser' })).toBe('name the agent (to), the account, or both')
    expect(await refusal({ title: 'parser', account: 'ghost' })).toMatch(/unknown codex account "ghost"/)
    expect(await refusal({ title: 'nobody', to: 'claude' })).toMatch(/no session titled "nobody"/)

    await daemon.client.call('CreateSession', { repo_path: repo, title: 'shelved' })
    await daemon.client.call('ArchiveSession', { title: 'shelved' })
    expect(await refusal({ title: 'shelved', to: 'codex' })).toMatch(/session "shelved" is archived; restore it with RestoreArchived first/)
    expect(await session(daemon, 'shelved')).toMatchObject({ program: 'claude', liveness_name: 'archived', can_handoff: false })
    const after = await waitForSession(daemon, 'parser', (s) => s.liveness_name === 'ready')
    expect([after.program, after.tabs[0]?.handoffs?.length]).toEqual([before.program, 1])
  })

  it('hands a running session over mid-work: the old agent is stopped, the worktree and branch kept, the brief says so', { timeout: 90_000 }, async () => {
    const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'lexer', prompt: 'tokenize the input' })
    await waitForSession(daemon, 'lexer', (s) => s.liveness_name === 'ready')
    await writeFile(join(instance.path, 'tokens.txt'), 'half a table\n')
    const head = git(instance.path, 'rev-parse', 'HEAD').trim()
    await daemon.client.call('SendPrompt', { title: 'lexer', prompt: '/busy 60' })
    const running = await waitForSession(daemon, 'lexer', (s) => s.liveness_name === 'running')
    expect(running.can_handoff).toBe(true)
    const tmuxName = instance.tabs[0]?.tmux_name as string
    const claudePid = Number(panePid(daemon, tmuxName))

    // Refused while it works, it works on: the same process, still ticking.
    expect(await refusal({ title: 'lexer', to: 'claude' })).toMatch(/already runs claude; name another agent or account/)
    expect(await refusal({ title: 'lexer', to: 'nope' })).toMatch(/unknown agent "nope"/)
    const ticks = () => history(daemon, tmuxName).match(/^busy \d+$/gm)?.length ?? 0
    const ticked = ticks()
    await waitFor(() => ticks() > ticked || undefined)
    expect(Number(panePid(daemon, tmuxName))).toBe(claudePid)
    expect((await session(daemon, 'lexer')).tabs[0]).not.toHaveProperty('handoffs')

    const answer = await daemon.client.call('HandoffSession', { title: 'lexer', to: 'codex' })
    expect(answer).toEqual({ ok: true, from: { program: 'claude', account: '' }, to: { program: 'codex', account: '' }, head_sha: head })
    // The busy agent is gone, not left working beside its successor.
    const alive = (pid: number) => {
      try {
        return process.kill(pid, 0)
      } catch {
        return false
      }
    }
    await waitFor(() => !alive(claudePid) || undefined)
    expect(startCommand(daemon, tmuxName)).toContain(kinds.codexDump)

    // Its work stays as it was: the uncommitted file, the branch and its head.
    expect(await readFile(join(instance.path, 'tokens.txt'), 'utf8')).toBe('half a table\n')
    expect(git(instance.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('agent/lexer')
    expect(git(instance.path, 'rev-parse', 'HEAD').trim()).toBe(head)
    const after = await session(daemon, 'lexer')
    expect(after).toMatchObject({ id: instance.id, path: instance.path, branch: 'agent/lexer', program: 'codex' })
    expect(after.tabs[0]?.handoffs).toEqual([{ from: answer.from, to: answer.to, at: expect.any(String), head_sha: head, reason: 'handed-over' }])

    const pane = await briefRead(daemon, tmuxName)
    expect(pane).toContain('received: The user stopped the previous agent, claude, and handed the work over to you, codex.')
    expect(pane).toContain('received: It was interrupted mid-work:')
    expect(pane).toContain('received: Goal: tokenize the input')
    expect(pane).toContain('received:   ?? tokens.txt')
    await waitForSession(daemon, 'lexer', (s) => s.liveness_name === 'ready' && s.can_handoff)
  })

  it('switches the account, keeps a brief that may not have arrived pending, and ResumeFromLimit delivers it', { timeout: 90_000 }, async () => {
    await daemon.client.call('RegisterAccount', { agent: 'codex', name: 'team' })
    await writeFile(mute(), '')
    await writeFile(kinds.codexDump, 'null')
    const answer = await daemon.client.call('HandoffSession', { title: 'parser', account: 'team', brief: 'finish the trailing-comma support' })
    expect([answer.from, answer.to]).toEqual([{ program: 'codex', account: '' }, { program: 'codex', account: 'team' }])
    const env = await envDump(kinds.codexDump)
    expect(env.CODEX_HOME).toBe(join(daemon.home, 'accounts', 'codex', 'team'))
    expect(env).not.toHaveProperty('OPENAI_API_KEY')
    expect(env).not.toHaveProperty('CODEX_API_KEY')

    // The new agent showed nothing of the paste: the brief is not known to have arrived.
    const pending = await waitForSession(daemon, 'parser', (s) => s.liveness_name === 'ready')
    expect(pending).toMatchObject({ account: 'team', mission_pending: true, last_prompt_delivery_status: 'sent-unverified' })
    expect(pending.idle_reason).toBe('delivery-unconfirmed')
    expect(pending.tabs[0]?.handoffs?.map((entry) => entry.reason)).toEqual(['usage-limit', 'handed-over'])

    await rm(mute())
    await daemon.client.call('ResumeFromLimit', { title: 'parser' })
    const delivered = await session(daemon, 'parser')
    expect(delivered).not.toHaveProperty('mission_pending')
    expect(delivered.last_prompt_delivery_status).toBe('delivered')
    const pane = await briefRead(daemon, delivered.tabs[0]?.tmux_name as string)
    expect(pane).toContain('received: Goal: finish the trailing-comma support')
    expect(pane).toContain('received: The user stopped the previous agent, codex, and handed the work over to you, codex (account team).')
    // Nothing is pending any more: a usage-limit resume is all ResumeFromLimit would do now.
    const again = await daemon.post('/v1/ResumeFromLimit', { title: 'parser' })
    expect(again.json.error.message).toMatch(/is not at a usage limit/)
  })

  it('puts the old agent back when the new one dies as it starts', { timeout: 60_000 }, async () => {
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.aider', value: `node ${FAKE_AGENT} --fail-start` })
    // Ready, with the last brief's lines all worked through.
    const before = await waitForSession(
      daemon,
      'parser',
      (s) => s.liveness_name === 'ready' && Date.now() - Date.parse(s.last_pane_churn_at ?? '') > 1_000,
    )
    await writeFile(kinds.codexDump, 'null')
    const refused = await daemon.post('/v1/HandoffSession', { title: 'parser', to: 'aider' })
    // Its last words, when tmux caught them before the pane died.
    expect(refused.json.error.message).toMatch(/^aider exited as it started( \(fake-agent: failing at start\))?; the session goes on under codex \(account team\)$/)
    expect((await envDump(kinds.codexDump)).CODEX_HOME).toBe(join(daemon.home, 'accounts', 'codex', 'team'))
    const after = await waitForSession(daemon, 'parser', (s) => s.liveness_name === 'ready')
    expect([after.program, after.account, after.tabs[0]?.handoffs]).toEqual([before.program, before.account, before.tabs[0]?.handoffs])
    expect(await readdir(join(daemon.home, 'handoffs'))).toEqual([])
  })

  it('is one command: svc sessions handoff <title> --to <agent>', { timeout: 60_000 }, async () => {
    const result = await runCli(['sessions', 'handoff', 'parser', '--to', 'claude', '--brief', 'wrap it up'], { SERVICE_HOME: daemon.home })
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, from: { program: 'codex', account: 'team' }, to: { program: 'claude', account: '' } })
    const pane = await briefRead(daemon, (await session(daemon, 'parser')).tabs[0]?.tmux_name as string)
    expect(pane).toContain('received: Goal: wrap it up')
    const refused = await runCli(['sessions', 'handoff', 'parser', '--to', 'claude'], { SERVICE_HOME: daemon.home })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/already runs claude/)
  })
})

describe('a handoff the daemon died in', () => {
  async function setUp(codexFlags: string) {
    const dir = await homes.make()
    const repo = await makeRepo(dir)
    const kinds = agents(dir, codexFlags)
    const home = join(dir, 'svc')
    const settings = { program_overrides: kinds.overrides }
    const first = await startSessionDaemon({ home, settings })
    const { instance } = await first.client.call('CreateSession', { repo_path: repo, title: 'crash', prompt: 'build the thing' })
    await waitForSession(first, 'crash', (s) => s.liveness_name === 'ready')
    const stored = () => readFile(join(home, 'sessions', `${instance.id}.json`), 'utf8').then((text) => JSON.parse(text) as { program: string })
    const handoff = first.client.call('HandoffSession', { title: 'crash', to: 'codex' }).catch((error: Error) => error)
    return { home, kinds, settings, first, instance, stored, handoff, tmuxName: instance.tabs[0]?.tmux_name as string }
  }

  it('is reverted at the next start when the new agent had not yet taken over', { timeout: 90_000 }, async () => {
    // The new agent draws nothing for a long while: the handoff waits for it, uncommitted.
    const { home, kinds, settings, first, instance, stored, handoff, tmuxName } = await setUp('--silent-start 20')
    // The new agent's pane is up, the intent written, the record untouched.
    await waitFor(() => startCommand(first, tmuxName).includes(kinds.codexDump))
    expect(await readdir(join(home, 'handoffs'))).toEqual([`${instance.id}.json`])
    await first.stop('SIGKILL')
    expect(await handoff).toBeInstanceOf(Error)
    expect((await stored()).program).toBe('claude')

    await rm(kinds.claudeDump)
    const second = await startSessionDaemon({ home, settings })
    const reverted = await session(second, 'crash')
    expect(reverted).toMatchObject({ program: 'claude', tabs: [expect.not.objectContaining({ handoffs: expect.anything() })] })
    expect(reverted).not.toHaveProperty('mission_pending')
    // The old agent runs again under the same tmux name; the half-started one is gone.
    expect(startCommand(second, tmuxName)).toContain(kinds.claudeDump)
    await envDump(kinds.claudeDump)
    expect(await readdir(join(home, 'handoffs'))).toEqual([])
    await logShowing(second, 'reverted a handoff the daemon died in')
    await waitForSession(second, 'crash', (s) => s.liveness_name === 'ready')
  })

  it('is completed at the next start once the new agent had taken over: its brief is delivered then', { timeout: 90_000 }, async () => {
    // The new agent draws at once but keeps busy for seconds: the brief waits for it to settle.
    const { home, kinds, settings, first, stored, handoff, tmuxName } = await setUp('--warm-up 5')
    await waitFor(async () => ((await stored()).program === 'codex' ? true : undefined))
    await first.stop('SIGKILL')
    expect(await handoff).toBeInstanceOf(Error)
    const codexPid = panePid(first, tmuxName)

    const second = await startSessionDaemon({ home, settings })
    expect(await readdir(join(home, 'handoffs'))).toEqual([])
    const taken = await session(second, 'crash')
    expect(taken.program).toBe('codex')
    expect(taken.tabs[0]?.handoffs).toHaveLength(1)
    // The same codex process carries on: completing is not starting over.
    expect(panePid(second, tmuxName)).toBe(codexPid)
    const done = await waitForSession(second, 'crash', (s) => s.mission_pending === undefined && s.last_prompt_delivery_status === 'delivered', 30_000)
    expect(done.program).toBe('codex')
    const pane = await briefRead(second, tmuxName)
    expect(pane).toContain('received: Goal: build the thing')
    expect(pane.split('received: Do not start over').length).toBe(2)
    expect(startCommand(second, tmuxName)).toContain(kinds.codexDump)
  })
})
