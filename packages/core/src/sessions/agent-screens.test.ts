import { expect, it } from 'vitest'
import pino from 'pino'
import type { AgentGatePolicy } from '../config/keys.js'
import type { Tmux } from '../infra/tmux.js'
import { AgentScreens, GATE_ANSWERS } from './agent-screens.js'
import { sessionRecord } from './record.fixture.js'
import type { SessionRecord } from './record.js'

// Claude's screens as its profile reads them (the real ones are in agents/fixtures/).
const COMPOSER = '────────\n❯\u00a0\n────────\n  ⏵⏵ auto mode on (shift+tab to cycle)\n'
const OPTIONS = ['No, exit', 'Yes, I trust this folder']

/** Claude's trust dialog with the cursor on option `at` (it starts on the refusal). */
function trust(at: number): string {
  const options = OPTIONS.map((option, index) => ` ${index === at ? '❯' : ' '} ${option}`)
  return ['Quick safety check: Is this a project you created or one you trust?', '', ...options, '', ' Enter to confirm · Esc to cancel', ''].join('\n')
}

/** A pane showing Claude's trust dialog, whose cursor moves with the keys sent; Enter is recorded and leaves the dialog up. */
function pane(policy: AgentGatePolicy = 'accept') {
  const state = { cursor: 0, screen: '', keys: [] as string[], entered: [] as string[] }
  const draw = () => (state.screen = trust(state.cursor))
  draw()
  const tmux = {
    capture: async (names: string[]) => new Map(names.map((name) => [name, state.screen])),
    sendKeys: async (_name: string, ...keys: string[]) => {
      state.keys.push(...keys)
      for (const key of keys) {
        if (key === 'Down') state.cursor = Math.min(state.cursor + 1, OPTIONS.length - 1)
        if (key === 'Up') state.cursor = Math.max(state.cursor - 1, 0)
        if (key === 'Enter') state.entered.push(OPTIONS[state.cursor] as string)
      }
      draw()
    },
  } as unknown as Tmux
  const record: SessionRecord = { ...sessionRecord('s1', 'alpha', 'ready'), profile: 'claude' }
  return { state, record, screens: new AgentScreens(tmux, pino({ level: 'silent' }), async () => policy) }
}

it('answers a gate once per appearance, at most three times, then leaves it to the user', async () => {
  const { state, record, screens } = pane()
  const looked = await screens.look(record, state.screen)
  expect(looked?.reading.gate?.name).toBe('folder trust')
  // The refusal is preselected: the cursor is moved to the trust, then Enter.
  expect(state.keys).toEqual(['Down', 'Enter'])
  expect(state.entered).toEqual(['Yes, I trust this folder'])
  // While an answer may still be landing, the same gate is not answered again.
  await screens.look(record, state.screen)
  expect(state.entered).toHaveLength(1)
  expect(record.agent_asks).toBeUndefined()
})

it('never loops Enter into a gate that stays: after three answers it is the user\'s', async () => {
  const { state, record, screens } = pane()
  const answersFor = screens as unknown as { answers: Map<string, { count: number; at: number }> }
  for (let answer = 0; answer < GATE_ANSWERS + 2; answer++) {
    const seen = await screens.look(record, state.screen)
    // Time passes between looks: each earlier answer has landed.
    for (const entry of answersFor.answers.values()) entry.at = 0
    if (answer === GATE_ANSWERS) expect(seen?.changed).toBe(true)
  }
  expect(state.entered).toEqual(Array(GATE_ANSWERS).fill('Yes, I trust this folder'))
  expect(record.agent_asks).toBe('folder trust')
  // The composer back: nothing is asked any more.
  expect((await screens.look(record, COMPOSER))?.changed).toBe(true)
  expect(record.agent_asks).toBeUndefined()
})

it('with agent_gates ask, types nothing and marks the session as asking', async () => {
  const { state, record, screens } = pane('ask')
  expect((await screens.look(record, state.screen))?.changed).toBe(true)
  expect(state.keys).toEqual([])
  expect(record.agent_asks).toBe('folder trust')
})

it('reads nothing of a program without a profile', async () => {
  const { state, record, screens } = pane()
  delete record.profile
  expect(await screens.look(record, state.screen)).toBeUndefined()
  expect(state.keys).toEqual([])
})

it('waits for the composer, and says why when it never shows', async () => {
  const { state, record, screens } = pane('ask')
  let heard = 0
  const reason = await screens.composer(record, async () => void heard++, 300)
  expect(reason).toBe('the agent asks "folder trust", which is left to you: answer it in its terminal')
  expect(heard).toBe(1)
  state.screen = 'Loading…'
  expect(await screens.composer(record, async () => void heard++, 300)).toBe("the agent's composer did not show within 0.3 s")
  // A fresh agent's composer counts once it has stayed still for a moment (Claude: 1 s); later ones at once.
  setTimeout(() => (state.screen = COMPOSER), 150)
  const started = Date.now()
  expect(await screens.composer(record, async () => {}, 5_000)).toBeUndefined()
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_100)
  const again = Date.now()
  expect(await screens.composer(record, async () => {}, 5_000)).toBeUndefined()
  expect(Date.now() - again).toBeLessThan(500)
})
