import { readFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createClient, EVENTS_OVERFLOW_CODE, EVENTS_PING_MS, EVENTS_QUEUE_FRAMES, type FeedFrame } from '@svc/protocol'
import { makeRepo, recordEvents, send, startDaemon, tempHomes, waitFor, type TestDaemon } from '@svc/test-kit'

const homes = tempHomes()
afterEach(homes.release)

async function daemonWithTcp(): Promise<{ daemon: TestDaemon; url: string; port: number; token: string }> {
  const daemon = await startDaemon({ config: { network: { listen_addr: '127.0.0.1:0' } } })
  homes.keep(daemon.home)
  const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
  const port = Number(addr.slice(addr.lastIndexOf(':') + 1))
  return { daemon, url: `http://127.0.0.1:${port}`, port, token: (await readFile(daemon.paths.token, 'utf8')).trim() }
}

/** A raw subscriber over the Unix socket; `autoPong: false` makes one that never answers a ping. */
function subscriber(daemon: TestDaemon, autoPong = true): Promise<{ socket: WebSocket; frames: FeedFrame[]; closed: Promise<{ code: number; reason: string }> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws+unix://${daemon.paths.socket}:/v1/events`, { autoPong })
    const frames: FeedFrame[] = []
    socket.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as FeedFrame))
    const closed = new Promise<{ code: number; reason: string }>((done) =>
      socket.on('close', (code, reason) => done({ code, reason: reason.toString('utf8') })),
    )
    socket.once('open', () => resolve({ socket, frames, closed }))
    socket.once('error', reject)
  })
}

/** The HTTP status an upgrade was refused with, and its body, or "open". */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<{ status: number | 'open'; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    socket.on('open', () => {
      socket.close()
      resolve({ status: 'open', body: '' })
    })
    socket.on('unexpected-response', (_request, response) => {
      let body = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    socket.on('error', reject)
  })
}

const cronTask = (repo: string, fields: Record<string, unknown> = {}) => ({ cron_expr: '*/5 * * * *', prompt: 'tidy up', project_path: repo, ...fields })

describe('the event feed', () => {
  it('greets with the boot and seq, then sends projects, config and task changes in seq order, and nothing for reads', async () => {
    const daemon = await startDaemon()
    homes.keep(daemon.home)
    const repo = await makeRepo(await homes.make())
    const feed = await recordEvents(daemon.client)
    const hello = feed.frames[0]
    expect(hello).toEqual({ type: 'hello', data: { boot_id: (await daemon.client.call('Health')).boot_id, seq: expect.any(Number) } })
    const start = hello?.type === 'hello' ? hello.data.seq : -1

    await daemon.client.call('RegisterProject', { path: repo })
    await feed.next('projects.changed')
    // Registering again changes nothing: no event.
    await daemon.client.call('RegisterProject', { path: repo })
    await daemon.client.call('SetConfigValue', { key: 'limit_auto_resume', value: 'true' })
    expect(await feed.next('config.changed')).toMatchObject({ data: { key: 'limit_auto_resume' } })

    const added = await daemon.client.call('AddTask', { task: cronTask(repo, { id: 'nightly' }) })
    const created = await feed.next('task.created')
    const listed = (await daemon.client.call('ListTasks')).tasks.find((task) => task.id === 'nightly')
    expect(created.data).toEqual(listed)
    expect(created.data.id).toBe(added.task.id)
    await daemon.client.call('UpdateTask', { id: 'nightly', update: { prompt: 'tidy up more' } })
    expect((await feed.next('task.updated')).data.prompt).toBe('tidy up more')
    await daemon.client.call('RemoveTask', { id: 'nightly' })
    expect((await feed.next('task.removed')).data).toEqual({ id: 'nightly' })

    // Reads of every kind, then one change: the change is the very next frame.
    const before = feed.frames.length
    await daemon.client.call('Snapshot', {})
    await daemon.client.call('ListTasks')
    await daemon.client.call('ListProjects')
    await daemon.client.call('GetConfig')
    await daemon.client.call('SetConfigValue', { key: 'limit_auto_resume', value: 'false' })
    await feed.next('config.changed', () => true, before)
    expect(feed.frames.slice(before).map((frame) => frame.type)).toEqual(['config.changed'])

    const events = feed.frames.slice(1)
    expect(events.map((frame) => frame.type)).toEqual([
      'projects.changed',
      'config.changed',
      'task.created',
      'task.updated',
      'task.removed',
      'config.changed',
    ])
    expect(events.map((frame) => (frame.type === 'hello' ? -1 : frame.seq))).toEqual(events.map((_frame, at) => start + 1 + at))
    feed.close()
  })

  it('answers a plain GET with an envelope instead of upgrading, and another verb with the 405 envelope, on both listeners', async () => {
    const { daemon, port, token } = await daemonWithTcp()
    const plain = await send(daemon.socket, 'GET', '/v1/events')
    expect(plain.status).toBe(426)
    expect(plain.json).toEqual({ data: null, error: { message: expect.stringMatching(/is a WebSocket/), daemon_rejected: true } })
    const tcp = { host: '127.0.0.1', port }
    for (const [target, headers] of [[daemon.socket, {}], [tcp, { authorization: `Bearer ${token}` }]] as const) {
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const reply = await send(target, method, '/v1/events', { body: '{}', headers })
        expect(reply.status, method).toBe(405)
        expect(reply.headers.allow).toBe('GET')
        expect(reply.json).toEqual({ data: null, error: { message: `method ${method} not allowed; use GET`, daemon_rejected: true } })
      }
    }
  })

  it('holds upgrades on the TCP listener to the token and the Origin rule, and serves the feed there to the client', async () => {
    const { daemon, url, port, token } = await daemonWithTcp()
    const ws = `ws://127.0.0.1:${port}/v1/events`
    const missing = await upgrade(ws)
    expect(missing.status).toBe(401)
    expect(JSON.parse(missing.body)).toMatchObject({ data: null, error: { daemon_rejected: true } })
    expect((await upgrade(ws, { authorization: 'Bearer wrong' })).status).toBe(401)
    const foreign = await upgrade(ws, { authorization: `Bearer ${token}`, origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    expect((JSON.parse(foreign.body) as { error: { message: string } }).error.message).toMatch(/origin "https:\/\/evil\.example" is not allowed/)
    expect((await upgrade(ws, { authorization: `Bearer ${token}`, origin: url })).status).toBe('open')

    await expect(createClient({ url }).events().next()).rejects.toMatchObject({ name: 'DaemonError', status: 401 })
    const feed = await recordEvents(createClient({ url, token }))
    await daemon.client.call('SetConfigValue', { key: 'limit_auto_resume', value: 'true' })
    expect(await feed.next('config.changed')).toMatchObject({ data: { key: 'limit_auto_resume' } })
    feed.close()
  })

  it('reconnects after a daemon restart and yields the new hello', async () => {
    const daemon = await startDaemon()
    homes.keep(daemon.home)
    const feed = await recordEvents(daemon.client)
    const first = feed.frames[0]
    await daemon.stop()
    const again = await startDaemon({ home: daemon.home })
    const hello = await waitFor(() => feed.frames.slice(1).find((frame) => frame.type === 'hello'), 20_000)
    expect(hello.type === 'hello' && first?.type === 'hello' && hello.data.boot_id !== first.data.boot_id).toBe(true)
    expect(hello).toEqual({ type: 'hello', data: { boot_id: (await again.client.call('Health')).boot_id, seq: expect.any(Number) } })
    await again.client.call('SetConfigValue', { key: 'limit_auto_resume', value: 'true' })
    await feed.next('config.changed')
    feed.close()
  }, 40_000)

  it('pings every 15 s and drops a subscriber that did not answer, keeping one that did', async () => {
    const daemon = await startDaemon()
    homes.keep(daemon.home)
    const silent = await subscriber(daemon, false)
    const answering = await subscriber(daemon)
    let pings = 0
    answering.socket.on('ping', () => pings++)
    const started = Date.now()
    const closed = await silent.closed
    // Dropped at the ping after the one it left unanswered: one interval at least.
    expect(Date.now() - started).toBeGreaterThanOrEqual(EVENTS_PING_MS - 1000)
    expect(closed.code).toBe(1006)
    expect(pings).toBeGreaterThanOrEqual(1)
    expect(answering.socket.readyState).toBe(WebSocket.OPEN)
    answering.socket.close()
  }, 60_000)

  it('closes a subscriber that stopped reading with 1013 once 256 frames wait, while another keeps receiving every frame', async () => {
    const daemon = await startDaemon()
    homes.keep(daemon.home)
    const repo = await makeRepo(await homes.make())
    // A few large frames fill the kernel's socket buffers; then the daemon's queue counts.
    const prompt = (n: number) => `${n} ${'x'.repeat(100_000)}`
    await daemon.client.call('AddTask', { task: cronTask(repo, { id: 'big', prompt: prompt(0) }) })
    const slow = await subscriber(daemon)
    const fast = await subscriber(daemon)
    ;(slow.socket as unknown as { _socket: { pause(): void } })._socket.pause()
    const seen = (type: string) => fast.frames.filter((frame) => frame.type === type).length
    for (let n = 1; n <= 4; n++) {
      await daemon.client.call('UpdateTask', { id: 'big', update: { prompt: prompt(n) } })
      await waitFor(() => seen('task.updated') === n)
    }
    // Then small frames, quickly (the stalled subscriber is also answering no pings):
    // the reader has each batch before the next is made, so the stalled one delays nothing.
    const BATCH = 16
    const changes = EVENTS_QUEUE_FRAMES + 2 * BATCH
    for (let sent = 0; sent < changes; sent += BATCH) {
      await Promise.all(
        Array.from({ length: BATCH }, (_, i) =>
          daemon.client.call('SetConfigValue', { key: 'limit_auto_resume', value: String((sent + i) % 2 === 0) }),
        ),
      )
      await waitFor(() => seen('config.changed') === sent + BATCH)
    }
    ;(slow.socket as unknown as { _socket: { resume(): void } })._socket.resume()
    expect(await slow.closed).toEqual({ code: EVENTS_OVERFLOW_CODE, reason: 'event subscriber overflow' })
    const received = slow.frames.filter((frame) => frame.type !== 'hello').length
    expect(received).toBeGreaterThanOrEqual(EVENTS_QUEUE_FRAMES)
    expect(received).toBeLessThan(4 + changes)
    expect(fast.socket.readyState).toBe(WebSocket.OPEN)
    expect(seen('config.changed')).toBe(changes)
    fast.socket.close()
  }, 120_000)
})
