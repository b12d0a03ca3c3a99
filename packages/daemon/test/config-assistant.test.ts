import { execFileSync } from 'node:child_process'
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONFIG_ASSISTANT_PATH, createClient, servicePaths, type DaemonError } from '@svc/protocol'
import { AGENT, record, recordEvents, send, startSessionDaemon, tempHomes, tmux, tmuxSessions, waitFor, type TestDaemon } from '@svc/test-kit'

// The config assistant: one daemon-owned agent (the fake agent, as default_program's
// override) in a bare tmux session, briefed with every key, streamed, reaped.
const homes = tempHomes()
let daemon: TestDaemon

const assistants = (home: string) => tmuxSessions(home).filter((name) => name.startsWith('svc-config-'))
/** The assistant's pane with its scroll-back: the brief scrolls past as the fake agent answers each line. */
const paneOf = (home: string, name: string) => tmux(home, 'capture-pane', '-p', '-J', '-S', '-2000', '-t', `=${name}:`)

/** What the assistant read: its pane interleaves the brief's echo with its answers to each line. */
let inputLog: string

beforeAll(async () => {
  const dir = await homes.make()
  inputLog = join(dir, 'assistant-input.log')
  daemon = await startSessionDaemon({ home: join(dir, 'svc'), settings: { network: { listen_addr: '127.0.0.1:0' } } })
  await daemon.client.call('SetConfigValue', { key: 'program_overrides.claude', value: `${AGENT} --input-log ${inputLog}` })
})
afterAll(homes.release)

describe('the config assistant', () => {
  it('is a 404 to stream while none runs, and reaping none is fine', async () => {
    const refused = await daemon.client.configAssistant.stream().catch((error: DaemonError) => error)
    expect(refused).toMatchObject({
      status: 404,
      body: { message: 'no config assistant is running; POST /v1/config-assistant starts one', daemon_rejected: true },
    })
    expect(await daemon.client.configAssistant.reap()).toEqual({ ok: true })
  })

  it('spawns one briefed assistant for concurrent opens: the default program in SERVICE_HOME, never a session', async () => {
    const events = await recordEvents(daemon.client)
    const opens = await Promise.all([daemon.client.configAssistant.open(), daemon.client.configAssistant.open()])
    const name = opens[0].session_name
    expect(name).toMatch(/^svc-config-\d+$/)
    expect(opens[1].session_name).toBe(name)
    expect(assistants(daemon.home)).toEqual([name])
    // Briefed once the open answers: every key, and the one way to change one.
    expect(paneOf(daemon.home, name)).toContain('Now greet the user')
    const brief = await waitFor(() => readFile(inputLog, 'utf8').then((text) => text.includes('Now greet the user') && text), 30_000)
    const { entries } = await daemon.client.call('GetConfig')
    for (const entry of entries) expect(brief, entry.key).toContain(`- ${entry.key} (${entry.type}, ${entry.tier_name} key`)
    expect(brief).toContain('`svc config set <key> <value>`')
    expect(brief).toContain('Explain each change before you make it')
    expect(brief).toMatch(/default_program \(string, core key, applies at once\): Agent for new sessions.* Default: claude\. Value: claude\./)
    expect(tmux(daemon.home, 'display-message', '-p', '-t', `=${name}:`, '#{pane_current_path}').trim()).toBe(daemon.home)
    // The agent answers the brief line by line; once at its last, it takes new input at once.
    await waitFor(() => paneOf(daemon.home, name).includes('received: Now greet the user') || undefined, 30_000)
    // The daemon's own agent, not a session: no row, no session event.
    expect((await daemon.client.call('Snapshot', {})).instances).toEqual([])
    expect(events.frames.filter((frame) => frame.type.startsWith('session.'))).toEqual([])
    events.close()
    // Opened again: the same assistant.
    expect((await daemon.client.configAssistant.open()).session_name).toBe(name)
    expect(assistants(daemon.home)).toEqual([name])
  })

  it('streams its terminal over the socket and, with the token, over TCP', async () => {
    const { session_name: name } = await daemon.client.configAssistant.open()
    const local = record(await daemon.client.configAssistant.stream())
    await local.until((frame) => frame.type === 'hello')
    // The repaint is the pane as it is: the brief's last line and the agent's answers.
    await local.shows('received:')
    const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
    const token = (await readFile(daemon.paths.token, 'utf8')).trim()
    const remote = await createClient({ url: `http://${addr}`, token }).configAssistant.stream()
    remote.input('which key sets the agent?\r')
    await local.shows('received: which key sets the agent?')
    expect(paneOf(daemon.home, name)).toContain('received: which key sets the agent?')
    remote.close()
    local.frames.length = 0
    // The gate holds for it like for every route: no token, no stream.
    const refused = await createClient({ url: `http://${addr}` }).configAssistant.stream().catch((error: DaemonError) => error)
    expect(refused).toMatchObject({ status: 401 })
    // Reaped: the tmux session goes, its subscribers get the exit frame, and it streams no more.
    expect(await daemon.client.configAssistant.reap()).toEqual({ ok: true })
    await local.until((frame) => frame.type === 'exit')
    await local.done
    expect(assistants(daemon.home)).toEqual([])
    expect(await daemon.client.configAssistant.stream().catch((error: DaemonError) => error.status)).toBe(404)
  })

  it('answers a wrong verb 405 and an unknown field 400, spawning nothing', async () => {
    const socket = { socketPath: daemon.paths.socket }
    const wrong = await send(socket, 'PUT', CONFIG_ASSISTANT_PATH)
    expect(wrong.status).toBe(405)
    expect(wrong.headers.allow).toBe('POST, DELETE')
    expect((await send(socket, 'POST', `${CONFIG_ASSISTANT_PATH}/stream`)).status).toBe(405)
    const unknown = await send(socket, 'POST', CONFIG_ASSISTANT_PATH, { body: '{"program":"codex"}' })
    expect(unknown.status).toBe(400)
    expect(unknown.json.error.message).toMatch(/unknown field "program"/)
    expect(assistants(daemon.home)).toEqual([])
  })

  it('refuses an open whose agent exits before its brief, saying why, and leaves nothing behind', async () => {
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.claude', value: `${AGENT} --fail-start` })
    const refused = await daemon.client.configAssistant.open().catch((error: DaemonError) => error)
    expect(refused).toMatchObject({
      status: 500,
      message: expect.stringMatching(/^the config assistant \(default_program claude\) exited before its brief was delivered/),
    })
    expect(assistants(daemon.home)).toEqual([])
    expect(await daemon.client.configAssistant.stream().catch((error: DaemonError) => error.status)).toBe(404)
    await daemon.client.call('SetConfigValue', { key: 'program_overrides.claude', value: AGENT })
  })

  it('goes with the daemon that owns it', async () => {
    const { session_name: name } = await daemon.client.configAssistant.open()
    expect(assistants(daemon.home)).toEqual([name])
    await daemon.stop()
    expect(assistants(daemon.home)).toEqual([])
  })
})

describe('the idle config assistant', () => {
  let idle: TestDaemon

  beforeAll(async () => {
    const home = join(await homes.make(), 'svc')
    // One a killed daemon left behind: the new daemon does not own it, so it ends it.
    await mkdir(home, { recursive: true })
    execFileSync('tmux', ['-S', servicePaths(home).tmuxSocket, 'new-session', '-d', '-s', 'svc-config-3', 'sleep 600'])
    idle = await startSessionDaemon({ home, env: { SVC_CONFIG_ASSISTANT_IDLE_MS: '1500' } })
  })

  it('reaps what a previous daemon left, then an assistant nobody watches once the idle time has passed', async () => {
    expect(assistants(idle.home)).toEqual([])
    // Opened and never watched: the idle clock runs from the open.
    await idle.client.configAssistant.open()
    await waitFor(() => assistants(idle.home).length === 0 || undefined, 5_000)

    // Watched: it lives on past the idle time, then goes once its last subscriber left.
    const { session_name: name } = await idle.client.configAssistant.open()
    const first = await idle.client.configAssistant.stream()
    const second = await idle.client.configAssistant.stream()
    first.close()
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect(assistants(idle.home)).toEqual([name])
    second.close()
    await waitFor(() => assistants(idle.home).length === 0 || undefined, 5_000)

    // A person attached with tmux itself (as the terminal UI does) keeps it too, until they leave.
    const watched = (await idle.client.configAssistant.open()).session_name
    const person = join(idle.home, 'person.sock')
    const attach = `env -u TMUX tmux -S ${servicePaths(idle.home).tmuxSocket} attach -t =${watched}`
    execFileSync('tmux', ['-S', person, 'new-session', '-d', '-x', '80', '-y', '24', attach])
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect(assistants(idle.home)).toEqual([watched])
    execFileSync('tmux', ['-S', person, 'kill-server'])
    await waitFor(() => assistants(idle.home).length === 0 || undefined, 5_000)
  })
})
