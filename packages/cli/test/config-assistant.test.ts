import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runCli, startSessionDaemon, tempHomes, tmuxSessions, waitFor, type TestDaemon } from '@svc/test-kit'
import { TestTerminal } from './terminal.js'

// `svc config assistant` in a real terminal: the config assistant (the fake agent) through its stream.
const homes = tempHomes()
let dir: string
let daemon: TestDaemon

beforeAll(async () => {
  dir = await homes.make()
  daemon = await startSessionDaemon({ home: join(dir, 'svc') })
})
afterAll(homes.release)

const shows = (screen: TestTerminal, text: string, timeoutMs = 20_000) =>
  waitFor(() => screen.text().includes(text) || undefined, timeoutMs).catch(() => {
    throw new Error(`the terminal never showed ${text}; it shows:\n${screen.text()}`)
  })

it('attaches this terminal to the briefed assistant until Ctrl-\\, which leaves it running', async () => {
  const screen = new TestTerminal(dir)
  screen.run(['config', 'assistant'], { SERVICE_HOME: daemon.home })
  // The repaint: the assistant's pane, the brief's last line as the fake agent received it
  // (the long brief is pasted into a starting agent: slow on a loaded machine).
  await shows(screen, 'received: Now greet the user', 45_000)
  screen.keys('make new sessions use codex', 'Enter')
  await shows(screen, 'received: make new sessions use codex')
  screen.keys('C-\\')
  await shows(screen, 'attach exited 0')
  expect(screen.text()).toContain('[detached; the config assistant is ended 60 s after the last terminal on it detaches')
  const [name] = tmuxSessions(daemon.home).filter((each) => each.startsWith('svc-config-'))
  expect(name).toBeDefined()
  screen.close()
  // Without a terminal: the same assistant, named.
  const scripted = await runCli(['config', 'assistant', '--json'], { SERVICE_HOME: daemon.home })
  expect(scripted.code, scripted.stderr).toBe(0)
  expect(JSON.parse(scripted.stdout)).toEqual({ session_name: name })
}, 120_000)
