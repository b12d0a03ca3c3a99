import { expect, it } from 'vitest'
import pino from 'pino'
import { Config } from '../config/config.js'
import type { AgentGatePolicy } from '../config/keys.js'
import { systemClock } from '../infra/clock.js'
import type { PaneState, Tmux } from '../infra/tmux.js'
import { AgentScreens } from './agent-screens.js'
import { Observer, type ObserverHost } from './observer.js'
import { setState, stateOf } from './record.js'
import { sessionRecord } from './record.fixture.js'
import type { Panes } from './runtime.js'

/** One ready session, a pane whose text the test sets, and leases the test takes. */
async function watched({ profile, gates = 'accept' }: { profile?: string; gates?: AgentGatePolicy } = {}) {
  const record = { ...sessionRecord('s1', 'alpha', 'ready'), ...(profile ? { profile } : {}) }
  const pane = { screen: 'fake-agent ready\n> ', duringPoll: () => {} }
  const leased = new Set<string>()
  const tmux = {
    poll: async (names: string[]) => {
      pane.duringPoll()
      const state = { dead: false, deadStatus: undefined, activity: true, hasClient: false, attached: false }
      return new Map<string, PaneState>(names.map((name) => [name, { session: name, ...state }]))
    },
    capture: async (names: string[]) => new Map(names.map((name) => [name, pane.screen])),
  } as unknown as Tmux
  const host: ObserverHost = {
    records: () => [record],
    get: (id) => (id === record.id ? record : undefined),
    inFlight: () => false,
    leased: (id) => leased.has(id),
    exclusive: (_id, work) => work(),
    save: async () => {},
    transition: (target, state) => setState(target, state),
    touch: () => {},
    settled: () => {},
    deliverInto: async () => 'delivered',
    resumeFromLimit: async () => {},
    ticked: () => {},
  }
  const options = { config: await Config.load('/nonexistent/config.json'), log: pino({ level: 'silent' }), clock: systemClock }
  const screens = new AgentScreens(tmux, options.log, async () => gates)
  const observer = new Observer(host, tmux, {} as Panes, screens, options)
  return { record, pane, leased, tick: () => observer.tick() }
}

it("does not count a pane change seen while a lease began (a terminal attaching) as the agent's work", async () => {
  const { record, pane, leased, tick } = await watched()
  await tick() // the baseline
  pane.duringPoll = () => {
    leased.add(record.id)
    pane.screen = 'fake-agent ready\n> (redrawn at the new size)'
  }
  await tick()
  expect([stateOf(record), record.last_pane_churn_at]).toEqual(['ready', undefined])

  // After the lease, the first look only sets a new baseline; the agent's own output then counts.
  pane.duringPoll = () => {}
  leased.clear()
  await tick()
  await tick()
  expect(stateOf(record)).toBe('ready')
  pane.screen = 'working 0'
  await tick()
  expect(stateOf(record)).toBe('running')
  expect(record.last_pane_churn_at).toBeDefined()
})

it("keeps a known agent running while its busy line shows, even when a look finds the pane unchanged", async () => {
  const { record, pane, tick } = await watched({ profile: 'claude' })
  pane.screen = '✻ Pondering… (3s · esc to interrupt)\n────\n> \n────'
  await tick()
  await tick()
  expect(stateOf(record)).toBe('running')
  await tick()
  expect(stateOf(record)).toBe('running')
  pane.screen = '⏺ done\n────\n> \n────\n  ? for shortcuts'
  await tick()
  await tick()
  expect(stateOf(record)).toBe('ready')
})

it('leaves a start-up gate to the user under agent_gates ask: ready, asking, and not the agent\'s work', async () => {
  const { record, pane, tick } = await watched({ profile: 'claude', gates: 'ask' })
  await tick()
  pane.screen = 'Quick safety check: Is this a project you created or one you trust?\n ❯ 1. Yes, I trust this folder\n   2. No, exit\n Enter to confirm · Esc to cancel'
  await tick()
  expect([stateOf(record), record.agent_asks, record.last_pane_churn_at]).toEqual(['ready', 'folder trust', undefined])
})

it('settles a known agent that shows neither its busy line nor its composer once its pane stops changing', async () => {
  const { record, pane, tick } = await watched({ profile: 'claude' })
  await tick()
  pane.screen = 'Something Claude never drew before'
  await tick()
  expect(stateOf(record)).toBe('running')
  await tick()
  expect(stateOf(record)).toBe('ready')
})
