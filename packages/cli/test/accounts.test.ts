import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startSessionDaemon, tempHomes, tmuxSessions, waitFor, type TestDaemon } from '@svc/test-kit'
import { TestTerminal } from './terminal.js'

// `svc accounts login` in a real terminal: the agent's own login flow (the fake agent)
// through the daemon's login terminal, on this machine and from another one.
const homes = tempHomes()
let dir: string
let daemon: TestDaemon

beforeAll(async () => {
  dir = await homes.make()
  daemon = await startSessionDaemon({ home: join(dir, 'svc'), settings: { network: { listen_addr: '127.0.0.1:0' } } })
})
afterAll(homes.release)

const shows = (screen: TestTerminal, text: string) => waitFor(() => screen.text().includes(text) || undefined)

it('attaches this terminal to the login flow until it ends, and says whether the account is logged in', async () => {
  const screen = new TestTerminal(dir)
  screen.run(['accounts', 'login', 'claude', 'work'], { SERVICE_HOME: daemon.home })
  await shows(screen, 'fake-agent ready')
  screen.keys('the code', 'Enter')
  await shows(screen, 'done')
  // The flow stores its credential and ends.
  await writeFile(join(daemon.home, 'accounts', 'claude', 'work', '.credentials.json'), '{}')
  screen.keys('/exit', 'Enter')
  await shows(screen, 'attach exited 0')
  expect(screen.text()).toContain('claude account work is logged in')
  expect(tmuxSessions(daemon.home)).not.toContain('svc_login_claude_work')
  screen.close()
})

it('logs in from another machine over the TCP listener, and leaves the flow running on Ctrl-\\', async () => {
  const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
  const token = (await readFile(daemon.paths.token, 'utf8')).trim()
  const screen = new TestTerminal(dir)
  screen.run(['accounts', 'login', 'claude', 'remote'], { SERVICE_HOME: join(dir, 'no-daemon-here'), SVC_URL: `http://${addr}`, SVC_TOKEN: token })
  await shows(screen, 'fake-agent ready')
  screen.keys('C-\\')
  await shows(screen, 'attach exited 0')
  expect(screen.text()).toContain("[detached; the login runs on in tmux on the daemon's machine until its flow ends]")
  expect(screen.text()).toContain('claude account remote is not logged in yet')
  expect(tmuxSessions(daemon.home)).toContain('svc_login_claude_remote')
  screen.close()
})
