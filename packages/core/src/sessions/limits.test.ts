import { expect, it } from 'vitest'
import { AGENTS } from '../agents/agent.js'
import { limitBanner, parseResetTime, showsBanner } from './limits.js'

it('uses the built-in banner unless limit_patterns overrides it', () => {
  const builtIn = limitBanner(AGENTS.claude, {})
  expect(showsBanner(builtIn, 'oops\nClaude usage   limit\nreached. Try later')).toBe(true)
  expect(showsBanner(builtIn, 'Claude usage limit reachedX')).toBe(false)
  expect(showsBanner(limitBanner(AGENTS.codex, {}), "YOU'VE HIT YOUR USAGE LIMIT")).toBe(true)
  const custom = limitBanner(AGENTS.claude, { claude: 'rate.limited' })
  expect(showsBanner(custom, 'Claude usage limit reached.')).toBe(false)
  expect(showsBanner(custom, 'you are Rate-Limited')).toBe(true)
  expect(limitBanner(AGENTS.aider, {})).toBeUndefined()
  expect(limitBanner(undefined, { claude: 'x' })).toBeUndefined()
})

it('parses the reset time a banner names as the next such wall-clock time', () => {
  const now = new Date(2026, 10, 21, 14, 30)
  expect(parseResetTime('limit will reset at 5pm (UTC)', now)).toEqual(new Date(2026, 10, 21, 17, 0))
  expect(parseResetTime('resets 3:15 PM', now)).toEqual(new Date(2026, 10, 21, 15, 15))
  expect(parseResetTime('resets at 9am', now)).toEqual(new Date(2026, 10, 22, 9, 0))
  expect(parseResetTime('Resets 12am', now)).toEqual(new Date(2026, 10, 22, 0, 0))
  expect(parseResetTime('resets at 17:45', now)).toEqual(new Date(2026, 10, 21, 17, 45))
  expect(parseResetTime('try again later', now)).toBeUndefined()
  expect(parseResetTime('resets at 25:00', now)).toBeUndefined()
})
