import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Agent } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createClient, DaemonError, EVENTS_PATH, type ServerFrame } from '@svc/protocol'
import { connection, FLOOD, openSessionDaemon, startDaemon, paneText, record, send, session, tempHomes, tmux, waitFor, waitForSession, helloCursor, type TestDaemon } from '@svc/test-kit'

const homes = tempHomes()
let daemon: TestDaemon
let repo: string
let tcp: { host: string; port: number }
let token: string

beforeAll(async () => {
  ;({ repo, daemon } = await openSessionDaemon(homes, { settings: { network: { listen_addr: '127.0.0.1:0' } } }))
  const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
  tcp = { host: '127.0.0.1', port: Number(addr.slice(addr.lastIndexOf(':') + 1)) }
  token = (await readFile(daemon.paths.token, 'utf8')).trim()
})
afterAll(homes.release)

/** A session whose fake agent has drawn its prompt; returns its agent's tmux name. */
async function agentSession(title: string): Promise<string> {
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title })
  const pane = instance.tabs[0]?.tmux_name as string
  await waitFor(() => paneText(daemon.home, pane).includes('fake-agent ready') || undefined)
  return pane
}

const isType =
  <T extends ServerFrame['type']>(type: T) =>
  (frame: ServerFrame): frame is Extract<ServerFrame, { type: T }> =>
    frame.type === type

/** The HTTP status and body of a refused upgrade (`base` is ws+unix://<socket>: or ws://host:port). */
function refusedUpgrade(path: string, headers: Record<string, string> = {}, base = `ws+unix://${daemon.paths.socket}:`) {
  return new Promise<{ status: number; json: unknown }>((resolve, reject) => {
    const socket = new WebSocket(`${base}${path}`, { headers })
    socket.on('open', () => reject(new Error(`${path} was upgraded`)))
    socket.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || 'null') }))
    })
    socket.on('error', () => {})
  })
}

/** The daemon's open file descriptors and its tmux server's clients. */
async function resources(): Promise<{ fds: number; clients: number }> {
  const { readdir } = await import('node:fs/promises')
  const fds = (await readdir(`/proc/${daemon.process.pid}/fd`)).length
  const clients = tmux(daemon.home, 'list-clients', '-F', '#{client_pid}').split('\n').filter(Boolean).length
  return { fds, clients }
}

describe('the terminal stream', () => {
  it('starts with hello, the size and a repaint, streams output, takes input, and names its cursor in the header', async () => {
    const pane = await agentSession('frames')
    const stream = await daemon.client.stream('frames')
    const seen = record(stream)
    const hello = await seen.until(isType('hello'))
    expect(seen.frames.slice(0, 3).map((frame) => frame.type)).toEqual(['hello', 'resize', 'repaint'])
    expect(hello).toEqual({ type: 'hello', cursor: stream.startCursor })
    // Attaching takes the window's size: the pane's 50 rows (the status line is off), 200 columns.
    expect(seen.frames[1]).toEqual({ type: 'resize', rows: 50, cols: 200 })
    const repaint = Buffer.from((seen.frames[2] as { data: Uint8Array }).data).toString()
    expect(repaint).toContain('fake-agent ready')
    // Exactly the pane's rows, each on a line of its own.
    expect(repaint.split('\r\n')).toHaveLength(50)
    stream.input('from the stream\r')
    await seen.shows('received: from the stream')
    // The tmux client draws only the agent's screen: no status line naming the session.
    expect(tmux(daemon.home, 'show-options', '-g', 'status').trim()).toBe('status off')
    expect(seen.output().toString()).not.toContain(`[${pane}]`)
    expect(seen.frames.some(isType('output'))).toBe(true)
    stream.resize(30, 100)
    expect(await seen.until((frame) => frame.type === 'resize' && frame.rows === 30)).toEqual({ type: 'resize', rows: 30, cols: 100 })
    const framesPane = await paneOf('frames')
    await waitFor(() => tmux(daemon.home, 'display-message', '-p', '-t', `=${framesPane}:`, '#{window_height}x#{window_width}').trim() === '30x100' || undefined)
    stream.detach()
    expect(await stream.closed).toBe(1000)
  })

  it('replays from a cursor the ring holds, and jumps to now (hello, repaint) from one it does not', async () => {
    const first = record(await daemon.client.stream('frames'))
    const start = helloCursor(await first.until(isType('hello')).then(() => first))
    const stream = await daemon.client.stream('frames', { since: start })
    stream.input('replayed line\r')
    await first.shows('received: replayed line')
    const output = first.output()
    // A later subscriber resuming a few bytes in gets exactly what the first saw from there.
    const resumed = record(await daemon.client.stream('frames', { since: start + 5n }))
    expect(await resumed.until(isType('hello'))).toEqual({ type: 'hello', cursor: start + 5n })
    await waitFor(() => resumed.output().length >= output.length - 5 || undefined)
    expect(resumed.output().subarray(0, output.length - 5).equals(output.subarray(5))).toBe(true)
    expect(resumed.frames.some(isType('repaint'))).toBe(false)

    // A cursor from before this pty's ring (or past its end) jumps to the current one.
    const now = start + BigInt(output.length)
    const jumped = record(await daemon.client.stream('frames', { since: now + 1_000_000n }))
    const hello = await jumped.until(isType('hello'))
    expect(hello.type === 'hello' && hello.cursor >= now && hello.cursor < now + 1_000_000n).toBe(true)
    expect(jumped.frames.some(isType('repaint'))).toBe(true)
    stream.close()
  })

  it('drops output beyond the 1 MiB ring: an old cursor jumps', { timeout: 90_000 }, async () => {
    await agentSession('flood')
    const { id } = await daemon.client.call('CreateTab', { title: 'flood', command: `sleep 1; node ${FLOOD}` })
    const stream = await daemon.client.stream('flood', { tabId: id as string })
    const seen = record(stream)
    const start = helloCursor(await seen.until(isType('hello')).then(() => seen))
    await waitFor(() => seen.output().length > 1.2 * 1024 * 1024 || undefined, 80_000)
    const late = record(await daemon.client.stream('flood', { tabId: id as string, since: start }))
    const hello = await late.until(isType('hello'))
    expect(hello.type === 'hello' && hello.cursor > start + BigInt(1024 * 1024)).toBe(true)
    expect(late.frames.some(isType('repaint'))).toBe(true)
    stream.close()
    // Stopped, its scroll-back stays for the Preview test.
    tmux(daemon.home, 'send-keys', '-t', `=${(await session(daemon, 'flood')).tabs[1]?.tmux_name}:`, 'C-c')
  })

  it('takes input from every subscriber and shows each the other’s', async () => {
    await agentSession('pair')
    const [a, b] = [await daemon.client.stream('pair'), await daemon.client.stream('pair')]
    const [seenA, seenB] = [record(a), record(b)]
    a.input('alpha\r')
    await seenA.shows('received: alpha')
    b.input('beta\r')
    for (const seen of [seenA, seenB]) {
      await seen.shows('received: alpha')
      await seen.shows('received: beta')
    }
    a.close()
    b.close()
  })

  it('closes an unknown opcode with 1003 and a malformed resize too', async () => {
    for (const frame of [Buffer.from([0x07, 1]), Buffer.from([0x02, 0, 10]), '{"type":"shout"}']) {
      const socket = new WebSocket(`ws+unix://${daemon.paths.socket}:/v1/sessions/pair/stream`)
      await new Promise((resolve) => socket.once('open', resolve))
      socket.send(frame)
      expect(await new Promise((resolve) => socket.once('close', resolve))).toBe(1003)
    }
  })

  it('sends every subscriber the exit frame, then closes 1000, when the tab or the session goes', async () => {
    await agentSession('doomed')
    const { id } = await daemon.client.call('CreateTab', { title: 'doomed', name: 'side', shell: true })
    const tab = record(await daemon.client.stream('doomed', { tabId: id as string }))
    const agents = [await daemon.client.stream('doomed'), await daemon.client.stream('doomed')]
    const seen = agents.map(record)
    await daemon.client.call('CloseTab', { title: 'doomed', tab_id: id as string })
    expect(await tab.until(isType('exit'))).toEqual({ type: 'exit', code: 0 })
    await daemon.client.call('KillSession', { title: 'doomed' })
    for (const [i, stream] of agents.entries()) {
      expect(await (seen[i] as ReturnType<typeof record>).until(isType('exit'))).toEqual({ type: 'exit', code: 0 })
      expect(await stream.closed).toBe(1000)
    }
  })

  it('attaches again when a subscriber types tmux\'s detach key, so nobody\'s stream ends', async () => {
    await agentSession('detached')
    const tmuxName = await paneOf('detached')
    const clientOf = () => tmux(daemon.home, 'list-clients', '-t', `=${tmuxName}`, '-F', '#{client_pid}').trim() || undefined
    const streams = [await daemon.client.stream('detached'), await daemon.client.stream('detached')]
    const [typist, watcher] = streams.map(record) as [ReturnType<typeof record>, ReturnType<typeof record>]
    const first = await waitFor(clientOf)
    // The shared client must have been attached a while: one that cannot stay attached is not retried.
    await new Promise((resolve) => setTimeout(resolve, 1_200))
    streams[0]?.input('\x02d')
    const second = await waitFor(() => {
      const client = clientOf()
      return client !== undefined && client !== first ? client : undefined
    }, 15_000)
    expect(second).not.toBe(first)
    streams[1]?.input('still here\r')
    await typist.shows('received: still here')
    await watcher.shows('received: still here')
    expect([...typist.frames, ...watcher.frames].some(isType('exit'))).toBe(false)
    for (const stream of streams) stream.close()
  })

  it('answers stream-info with the stream path of the resolved session and tab', async () => {
    const found = await session(daemon, 'pair')
    const reply = await send(daemon.socket, 'GET', `/v1/sessions/pair/stream-info?since=12`)
    expect(reply.status).toBe(200)
    expect(reply.json).toEqual({ url: `/v1/sessions/${found.id}/stream?tab_id=${found.tabs[0]?.id}&since=12`, local: true })
  })
})

describe('refusals before the upgrade', () => {
  it('answers 400 for a bad since or tab, 404 for an unknown session or a stale tab_id, as envelopes', async () => {
    await agentSession('refusing')
    const cases: Array<[string, number, RegExp]> = [
      ['/v1/sessions/refusing/stream?since=abc', 400, /since must be an unsigned 64-bit cursor/],
      ['/v1/sessions/refusing/stream?since=18446744073709551616', 400, /since must be/],
      ['/v1/sessions/refusing/stream?tab=first', 400, /tab must be a tab's ordinal/],
      ['/v1/sessions/nobody/stream', 404, /no session titled "nobody"/],
      ['/v1/sessions/refusing/stream?tab_id=gone', 404, /no tab with id gone \(it may have been closed\)/],
      ['/v1/sessions/refusing/stream?tab=7', 404, /no tab at index 7/],
      ['/v1/sessions/nobody/stream-info', 404, /no session titled "nobody"/],
    ]
    for (const [path, status, message] of cases) {
      const reply = path.endsWith('stream-info') ? await send(daemon.socket, 'GET', path) : await refusedUpgrade(path)
      expect({ status: reply.status, json: reply.json }, path).toEqual({ status, json: { data: null, error: { message: expect.stringMatching(message), daemon_rejected: true } } })
    }
    await expect(daemon.client.stream('nobody')).rejects.toThrow(DaemonError)
  })

  it('answers 503 on both live planes while the daemon is warming up', async () => {
    const dir = await homes.make()
    const gate = join(dir, 'restore-gate')
    await writeFile(gate, '')
    const warming = await startDaemon({ home: join(dir, 'state'), env: { SVC_RESTORE_GATE: gate }, waitReady: false })
    const warm = { status: 503, json: { data: null, error: { message: 'the daemon is starting (restoring sessions); retry shortly', daemon_rejected: true } } }
    expect(await refusedUpgrade('/v1/sessions/any/stream', {}, `ws+unix://${warming.paths.socket}:`)).toEqual(warm)
    expect(await refusedUpgrade(EVENTS_PATH, {}, `ws+unix://${warming.paths.socket}:`)).toEqual(warm)
    const info = await send(warming.socket, 'GET', '/v1/sessions/any/stream-info')
    expect({ status: info.status, json: info.json }).toEqual(warm)
    expect((await warming.post('/v1/Preview', { title: 'any' })).status).toBe(503)
    await warming.stop()
  })

  it('holds the token and Origin rules on the TCP listener', async () => {
    const url = `http://${tcp.host}:${tcp.port}`
    const base = `ws://${tcp.host}:${tcp.port}`
    expect((await refusedUpgrade('/v1/sessions/pair/stream', {}, base)).status).toBe(401)
    const foreign = await refusedUpgrade('/v1/sessions/pair/stream', { authorization: `Bearer ${token}`, origin: 'https://evil.example' }, base)
    expect(foreign.status).toBe(403)
    await expect(createClient({ url }).stream('pair')).rejects.toMatchObject({ status: 401 })
    const withToken = createClient({ url, token })
    const stream = await withToken.stream('pair')
    const seen = record(stream)
    stream.input('over tcp\r')
    await seen.shows('received: over tcp')
    stream.close()
  })
})

describe('leases', () => {
  it('keeps typing through a stream from counting as the agent working', async () => {
    await agentSession('typed')
    await waitForSession(daemon, 'typed', (s) => s.liveness_name === 'ready')
    // Settled: ready can be saved a tick before its idle reason, later on a loaded machine.
    let before = await session(daemon, 'typed')
    await waitFor(async () => {
      await new Promise((resolve) => setTimeout(resolve, 600))
      const again = await session(daemon, 'typed')
      if (again.updated_at === before.updated_at) return true
      before = again
      return undefined
    }, 20_000)
    const stream = await daemon.client.stream('typed')
    const seen = record(stream)
    stream.input('/busy 1\r')
    await seen.shows('busy 900')
    // Several poll ticks (200 ms) saw the pane change; none of them counted it. The wait
    // also lets the agent's last output land while the lease holds, on a loaded machine too.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    stream.close()
    await stream.closed
    await new Promise((resolve) => setTimeout(resolve, 600))
    const after = await session(daemon, 'typed')
    expect([after.liveness_name, after.last_pane_churn_at, after.updated_at]).toEqual(['ready', before.last_pane_churn_at, before.updated_at])
    // Without a lease, the same work is the agent's.
    await daemon.client.call('SendPrompt', { title: 'typed', prompt: '/busy 2' })
    await waitForSession(daemon, 'typed', (s) => s.liveness_name === 'running')
  })

  it('PauseStatusPoll holds deferred prompts for 3 s per call; ResumeStatusPoll lets them through', async () => {
    const pane = await agentSession('paused')
    const lease = await daemon.client.call('PauseStatusPoll', { title: 'paused', holder: 'test' })
    expect(Date.parse(lease.expires_at) - Date.now()).toBeGreaterThan(2_000)
    expect(Date.parse(lease.expires_at) - Date.now()).toBeLessThanOrEqual(3_000)
    const deliver = { title: 'paused', repo_path: repo, prompt: 'wait for me', defer_while_attached: true }
    expect(await daemon.client.call('DeliverPrompt', deliver)).toEqual({ status: 'sent', deferred: true })
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(paneText(daemon.home, pane)).not.toContain('received: wait for me')
    // Another holder's resume does not end this one.
    await daemon.client.call('ResumeStatusPoll', { title: 'paused', holder: 'someone-else' })
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(paneText(daemon.home, pane)).not.toContain('received: wait for me')
    await daemon.client.call('ResumeStatusPoll', { title: 'paused', holder: 'test' })
    await waitFor(() => paneText(daemon.home, pane).includes('received: wait for me') || undefined)
  })

  it('lets a lease lapse after 3 s without renewal', async () => {
    const pane = await paneOf('paused')
    await daemon.client.call('PauseStatusPoll', { title: 'paused', holder: 'forgetful' })
    await daemon.client.call('DeliverPrompt', { title: 'paused', repo_path: repo, prompt: 'after the lapse', defer_while_attached: true })
    await waitFor(() => paneText(daemon.home, pane).includes('received: after the lapse') || undefined, 8_000)
  })

  it.each(['the Unix socket', 'the TCP listener'])(
    "gives a lease without a holder to the caller's connection, which alone renews and ends it, on %s",
    async (listener) => {
      const pane = await paneOf('paused')
      const [target, headers] = listener === 'the Unix socket' ? [daemon.socket, {}] : [tcp, { authorization: `Bearer ${token}` }]
      const [caller, other] = [connection(), connection()]
      const lease = (on: Agent, route: string, body: Record<string, unknown> = {}) =>
        send(target, 'POST', `/v1/${route}`, { body: JSON.stringify({ title: 'paused', ...body }), headers, agent: on })
      const prompt = `held for a connection on ${listener}`
      try {
        const taken = await lease(caller, 'PauseStatusPoll')
        expect(taken.status, taken.text).toBe(200)
        expect(taken.json).toEqual({ data: { ok: true, expires_at: expect.any(String) }, error: null })
        expect((await lease(caller, 'PauseStatusPoll')).status).toBe(200)
        expect(await daemon.client.call('DeliverPrompt', { title: 'paused', repo_path: repo, prompt, defer_while_attached: true })).toEqual({ status: 'sent', deferred: true })
        // Neither another connection nor a named holder ends it; the caller's renewal keeps it past 3 s.
        expect((await lease(other, 'ResumeStatusPoll')).json).toEqual({ data: { ok: true }, error: null })
        expect((await lease(caller, 'ResumeStatusPoll', { holder: 'someone' })).json).toEqual({ data: { ok: true }, error: null })
        await new Promise((resolve) => setTimeout(resolve, 2_000))
        expect((await lease(caller, 'PauseStatusPoll')).status).toBe(200)
        await new Promise((resolve) => setTimeout(resolve, 1_500))
        expect(paneText(daemon.home, pane)).not.toContain(`received: ${prompt}`)
        expect((await lease(caller, 'ResumeStatusPoll')).json).toEqual({ data: { ok: true }, error: null })
        await waitFor(() => paneText(daemon.home, pane).includes(`received: ${prompt}`) || undefined)
      } finally {
        caller.destroy()
        other.destroy()
      }
    },
  )

  it('holds deferred prompts while a stream is connected, not after', async () => {
    const pane = await paneOf('paused')
    const stream = await daemon.client.stream('paused')
    await record(stream).until(isType('hello'))
    const deliver = { title: 'paused', repo_path: repo, prompt: 'after the stream', defer_while_attached: true }
    expect(await daemon.client.call('DeliverPrompt', deliver)).toEqual({ status: 'sent', deferred: true })
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(paneText(daemon.home, pane)).not.toContain('received: after the stream')
    stream.close()
    await waitFor(() => paneText(daemon.home, pane).includes('received: after the stream') || undefined)
  })
})

describe('Preview', () => {
  it("returns the tab's visible text, cursor and size, with scroll-back on request", async () => {
    const preview = await daemon.client.call('Preview', { title: 'paused' })
    expect(preview.text).toContain('received: after the stream')
    const [rows, cols] = tmux(daemon.home, 'display-message', '-p', '-t', `=${await paneOf('paused')}:`, '#{pane_height} #{pane_width}').trim().split(' ').map(Number)
    expect(preview).toMatchObject({ rows, cols })
    expect(preview.text.split('\n').length).toBeGreaterThanOrEqual(rows as number)
    // The flood tab scrolled thousands of lines: five of them come back above the screen.
    const flood = (await session(daemon, 'flood')).tabs[1]?.id as string
    const [screen, deeper] = await Promise.all([0, 5].map((lines) => daemon.client.call('Preview', { title: 'flood', tab_id: flood, lines })))
    expect((deeper as { text: string }).text.split('\n').length).toBe((screen as { text: string }).text.split('\n').length + 5)
    expect((await daemon.post('/v1/Preview', { title: 'flood', lines: -1 })).json.error.message).toMatch(/lines must be 0 or more/)
    expect(preview.cursor.y).toBeGreaterThan(0)
    const refused = await daemon.post('/v1/Preview', { title: 'paused', tab_id: 'gone' })
    expect(refused.json.error.message).toMatch(/no tab with id gone/)
  })
})

describe('resources', () => {
  // Ten clients at a time, so the 1,000 cycles fit the suite's time on a shared machine.
  const cycles = Number(process.env.STREAM_CYCLES ?? 1_000)
  const clients = 10
  it(`leaves open fds and ptys where they were after ${cycles} connect/disconnect cycles`, { timeout: 240_000 }, async () => {
    await agentSession('cycles')
    await new Promise((resolve) => setTimeout(resolve, 3_500))
    const before = await resources()
    const started = Date.now()
    await Promise.all(
      Array.from({ length: clients }, async () => {
        for (let i = 0; i < cycles / clients; i++) {
          const stream = await daemon.client.stream('cycles')
          stream.close()
          await stream.closed
        }
      }),
    )
    process.stdout.write(`stream cycles: ${cycles} in ${Date.now() - started} ms\n`)
    // The pty outlives its last subscriber by a few seconds.
    await waitFor(async () => {
      const now = await resources()
      return now.fds <= before.fds && now.clients === before.clients ? now : undefined
    }, 10_000)
    const after = await resources()
    expect(after.clients).toBe(before.clients)
    expect(after.fds).toBeLessThanOrEqual(before.fds)
  })
})

/** The agent tab's tmux session. */
async function paneOf(title: string): Promise<string> {
  return (await session(daemon, title)).tabs[0]?.tmux_name as string
}
