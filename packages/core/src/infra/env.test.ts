import { expect, it } from 'vitest'
import { AGENTS } from '../agents/agent.js'
import { paneEnvironment } from './env.js'

const source = {
  PATH: '/bin',
  HOME: '/home/a',
  TERM: 'xterm',
  LC_ALL: 'C',
  XDG_CONFIG_HOME: '/c',
  SECRET: 's',
  ANTHROPIC_API_KEY: 'k',
  CLAUDE_CODE_MAX_TOKENS: '1',
  AWS_PROFILE: 'p',
  GOOGLE_APPLICATION_CREDENTIALS: '/g.json',
  MINE: 'm',
}

it('is default-deny', () => {
  expect(paneEnvironment(source, undefined, [])).toEqual({ PATH: '/bin', HOME: '/home/a', LC_ALL: 'C', XDG_CONFIG_HOME: '/c' })
})

it('adds the agent\'s own names and exact passthrough names', () => {
  const env = paneEnvironment(source, AGENTS.claude, ['MINE'])
  expect(env).toMatchObject({ ANTHROPIC_API_KEY: 'k', CLAUDE_CODE_MAX_TOKENS: '1', MINE: 'm' })
  expect(env).not.toHaveProperty('SECRET')
  expect(env).not.toHaveProperty('AWS_PROFILE')
  expect(paneEnvironment(source, AGENTS.codex, [])).not.toHaveProperty('ANTHROPIC_API_KEY')
})

it('adds a cloud group only when the agent\'s provider-selecting variable is set', () => {
  expect(paneEnvironment({ ...source, CLAUDE_CODE_USE_BEDROCK: '1' }, AGENTS.claude, [])).toHaveProperty('AWS_PROFILE')
  expect(paneEnvironment({ ...source, CLAUDE_CODE_USE_VERTEX: '1' }, AGENTS.claude, [])).toHaveProperty('GOOGLE_APPLICATION_CREDENTIALS')
  expect(paneEnvironment({ ...source, CLAUDE_CODE_USE_VERTEX: '1' }, AGENTS.claude, [])).not.toHaveProperty('AWS_PROFILE')
  expect(paneEnvironment({ ...source, GOOGLE_GENAI_USE_VERTEXAI: 'true' }, AGENTS.gemini, [])).toHaveProperty('GOOGLE_APPLICATION_CREDENTIALS')
  expect(paneEnvironment({ ...source, CLAUDE_CODE_USE_BEDROCK: '1' }, AGENTS.gemini, [])).not.toHaveProperty('AWS_PROFILE')
})
