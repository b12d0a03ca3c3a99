import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { afterAll, expect, it } from 'vitest'
import WebSocket from 'ws'
import { EVENTS_PATH, streamPath } from '@svc/protocol'
import { openSessionDaemon, paneText, tempHomes, waitFor } from '@svc/test-kit'

const homes = tempHomes()
afterAll(homes.release)

/** An open WebSocket, and the close code and reason it ends with. */
async function open(url: string, headers: Record<string, string> = {}): Promise<{ socket: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  const socket = new WebSocket(url, { headers })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString('utf8') })),
  )
  socket.on('error', () => {})
  await once(socket, 'open')
  return { socket, closed }
}

it('stops within moments of SIGTERM with event feeds and terminal streams open on both listeners, closing each with 1001', async () => {
  const { repo, daemon } = await openSessionDaemon(homes, { settings: { network: { listen_addr: '127.0.0.1:0' } } })
  const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
  const tcp = `ws://${addr}`
  const bearer = { authorization: `Bearer ${(await readFile(daemon.paths.token, 'utf8')).trim()}` }
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'watched' })
  await waitFor(() => paneText(daemon.home, instance.tabs[0]?.tmux_name as string).includes('fake-agent ready'))
  const unix = `ws+unix://${daemon.paths.socket}:`
  // Clients that never close on their own: the daemon must end them.
  const sockets = await Promise.all([
    open(`${tcp}${EVENTS_PATH}`, bearer),
    open(`${unix}${EVENTS_PATH}`),
    open(`${tcp}${streamPath(instance.id)}`, bearer),
    open(`${unix}${streamPath(instance.id)}`),
  ])

  const started = Date.now()
  const exit = once(daemon.process, 'exit')
  daemon.process.kill('SIGTERM')
  const [code] = (await exit) as [number | null]
  expect(Date.now() - started).toBeLessThan(3_000)
  expect(code).toBe(0)
  for (const { closed } of sockets) expect(await closed).toEqual({ code: 1001, reason: 'the daemon is stopping' })
})

it('says in daemon.log why it crashed when a bug escapes every handler, and exits failed', async () => {
  // The bug, injected from outside the daemon's code: a signal handler that throws.
  const bug = `process.on('SIGUSR2', () => { throw new Error('a bug on purpose') })`
  const crash = `--import=data:text/javascript,${encodeURIComponent(bug)}`
  const { daemon } = await openSessionDaemon(homes, { env: { NODE_OPTIONS: crash } })
  const exit = once(daemon.process, 'exit')
  daemon.process.kill('SIGUSR2')
  const [code] = (await exit) as [number | null]
  expect(code).toBe(1)
  const crashed = (await readFile(daemon.paths.log, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string; stack: string } })
    .at(-1)
  expect(crashed).toMatchObject({ level: 60, msg: 'crashed', err: { message: 'a bug on purpose' } })
  expect(crashed?.err?.stack).toContain('Error: a bug on purpose')
})
