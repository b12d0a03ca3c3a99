import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { createServer, connect, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  makePlace,
  makeRepo,
  netnsAvailable,
  paneText,
  runCli,
  startSessionDaemon,
  tempHomes,
  waitFor,
  type Place,
  type TestDaemon,
} from '@svc/test-kit'
import { TestTerminal } from './terminal.js'

// The "workstation": a daemon in a network namespace of its own, its TCP listener on the
// namespace's address. The "laptop": this side, its SERVICE_HOME holding no daemon, the
// workstation's token copied into a file.
const homes = tempHomes()
let dir: string
let place: Place
let daemon: TestDaemon
let repo: string
let url: string
let tokenFile: string
let laptop: Record<string, string>

const svc = (...args: string[]) => runCli(['--daemon-url', url, '--token-file', tokenFile, ...args], laptop)
const json = async (...args: string[]) => {
  const run = await svc('--json', ...args)
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout) as Record<string, unknown>
}
const agentPane = async (title: string) => {
  const { instances } = await daemon.client.call('Snapshot', {})
  return instances.find((each) => each.title === title)?.tabs[0]?.tmux_name as string
}
const paneShows = async (title: string, text: string) => waitFor(async () => paneText(daemon.home, await agentPane(title)).includes(text) || undefined, 20_000)

/** Waits until the terminal shows `text`; else fails with what it shows. */
const shows = (screen: TestTerminal, text: string | RegExp) =>
  waitFor(() => (typeof text === 'string' ? screen.text().includes(text) : text.test(screen.text())) || undefined, 20_000).catch(() => {
    throw new Error(`the terminal never showed ${String(text)}; it shows:\n${screen.text()}`)
  })

beforeAll(async () => {
  dir = await homes.make()
  repo = await makeRepo(dir)
  place = await makePlace()
  daemon = await startSessionDaemon({ home: join(dir, 'svc'), place, settings: { network: { listen_addr: `${place.address}:0` } } })
  url = `http://${(await daemon.client.call('Health')).listeners.tcp_bound_addr}`
  tokenFile = join(dir, 'workstation-token')
  await writeFile(tokenFile, await readFile(daemon.paths.token, 'utf8'), { mode: 0o600 })
  laptop = { SERVICE_HOME: join(dir, 'laptop') }
  await daemon.client.call('RegisterProject', { path: repo })
}, 60_000)

afterAll(async () => {
  await place?.remove()
  await homes.release()
})

describe(`the CLI against a daemon on another machine (${netnsAvailable() ? 'in a network namespace' : 'on loopback'})`, { timeout: 90_000 }, () => {
  it('lists, creates with a first prompt, and prompts through the TCP listener; nothing starts here', async () => {
    expect((await json('sessions', 'list')).instances).toEqual([])
    const created = await json('sessions', 'create', 'remote-work', '--repo', repo, '--prompt', 'first over the wire')
    expect(created).toMatchObject({ instance: { title: 'remote-work' } })
    await paneShows('remote-work', 'received: first over the wire')
    const sent = await json('sessions', 'send', 'remote-work', 'second over the wire')
    expect(sent).toMatchObject({ status: 'delivered' })
    await paneShows('remote-work', 'received: second over the wire')
    expect(((await json('sessions', 'list')).instances as Array<{ title: string }>).map((each) => each.title)).toEqual(['remote-work'])
    // The laptop's own daemon was never started.
    expect(existsSync(join(dir, 'laptop'))).toBe(false)
  })

  it('attaches this terminal over the stream, and the terminal UI attaches through it too', async () => {
    const screen = new TestTerminal(dir)
    try {
      screen.run(['--daemon-url', url, '--token-file', tokenFile, 'sessions', 'attach', 'remote-work'], laptop)
      await shows(screen, 'received: second over the wire')
      screen.keys('typed from the laptop', 'Enter')
      await paneShows('remote-work', 'received: typed from the laptop')
      screen.keys('C-\\')
      await shows(screen, 'attach exited 0')
    } finally {
      screen.close()
    }
    const ui = new TestTerminal(dir)
    try {
      ui.run(['--daemon-url', url, '--token-file', tokenFile], laptop)
      ui.resize(100, 30)
      await shows(ui, /svc · 1 session.*live/)
      // Enter attaches the selected session's agent: through the stream, as there is no tmux of that daemon here.
      ui.keys('Enter')
      await shows(ui, 'received: typed from the laptop')
      ui.keys('from the terminal UI', 'Enter')
      await paneShows('remote-work', 'received: from the terminal UI')
      ui.keys('C-\\')
      await shows(ui, 'back from remote-work')
    } finally {
      ui.close()
    }
  })

  it('refuses a daemon URL for the commands about this machine, changing nothing', async () => {
    for (const args of [['routes'], ['daemon', 'status'], ['doctor'], ['bug-report'], ['config', 'get', '--repo', repo]]) {
      const run = await svc(...args)
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stderr).toMatch(/acts on this machine's files and its own daemon; it does not take a daemon URL/)
    }
    expect(existsSync(join(dir, 'laptop'))).toBe(false)
  })

  it('says what failed, naming the URL: a wrong token, a refused connection', async () => {
    const wrong = join(dir, 'wrong-token')
    await writeFile(wrong, 'not-the-token')
    const refused = await runCli(['--daemon-url', url, '--token-file', wrong, 'sessions', 'list'], laptop)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`svc: the daemon at ${url} refused the token in ${wrong} (401)`)
    const closed = await closedPort()
    const down = await runCli(['--daemon-url', `http://127.0.0.1:${closed}`, '--token-file', tokenFile, 'sessions', 'list'], laptop)
    expect(down.code).toBe(3)
    expect(down.stderr).toContain(`svc: cannot reach the daemon at http://127.0.0.1:${closed}: the connection was refused`)
    const missing = await runCli(['--daemon-url', url, '--token-file', join(dir, 'nowhere'), 'sessions', 'list'], laptop)
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining(`cannot read the token file ${join(dir, 'nowhere')}`)])
  })

  it.skipIf(!netnsAvailable())('says a loopback daemon refused the Host a URL names', async () => {
    // A daemon whose listener is on loopback, reached through a forward from an address that is not: its Host check refuses.
    const local = await startSessionDaemon({ home: join(dir, 'loopback'), settings: { network: { listen_addr: '127.0.0.1:0' } } })
    const [, port] = (await local.client.call('Health')).listeners.tcp_bound_addr.split(':')
    const forward = await forwarder(place.hostAddress, Number(port))
    try {
      const target = `http://${place.hostAddress}:${(forward.address() as { port: number }).port}`
      const run = await runCli(['--daemon-url', target, '--token-file', local.paths.token, 'sessions', 'list'], laptop)
      expect(run.code).toBe(1)
      expect(run.stderr).toContain(`svc: the daemon at ${target} refused the Host ${new URL(target).host} (403:`)
      expect(run.stderr).toContain('add the name to network.allowed_hosts there')
    } finally {
      forward.close()
      await local.stop()
    }
  })
})

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Forwards connections on `host` (a free port) to 127.0.0.1:`port`. */
async function forwarder(host: string, port: number): Promise<Server> {
  const server = createServer((socket) => {
    const upstream = connect(port, '127.0.0.1')
    socket.pipe(upstream).pipe(socket)
    socket.on('error', () => upstream.destroy())
    upstream.on('error', () => socket.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return server
}
