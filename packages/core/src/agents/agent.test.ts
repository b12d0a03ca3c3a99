import { expect, it } from 'vitest'
import { routeNamed } from '@svc/protocol'
import { ACCOUNT_AGENTS, agentOf, commandLineOf } from './agent.js'

it('knows an agent by name or by its executable\'s basename', () => {
  expect(agentOf('claude')?.name).toBe('claude')
  expect(agentOf('/opt/bin/codex --full-auto')?.name).toBe('codex')
  expect(agentOf('node fake.mjs')).toBeUndefined()
})

it('resolves known names through program_overrides and leaves command lines alone', () => {
  expect(commandLineOf('claude', { claude: 'claude --model opus' })).toBe('claude --model opus')
  expect(commandLineOf('gemini', { claude: 'x' })).toBe('gemini')
  expect(commandLineOf('my-agent --flag', { 'my-agent --flag': 'nope' })).toBe('my-agent --flag')
})

it('is named in the route table where an account request lacks its agent', () => {
  for (const name of ['RegisterAccount', 'AccountLogin'] as const) {
    expect(routeNamed(name).required).toContainEqual({ field: 'agent', hint: `one of ${ACCOUNT_AGENTS.join(', ')}` })
  }
})
