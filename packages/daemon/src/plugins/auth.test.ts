import { expect, it } from 'vitest'
import { tokenMatches } from './auth.js'

it('matches tokens exactly, whatever their lengths', () => {
  expect(tokenMatches('abc', 'abc')).toBe(true)
  expect(tokenMatches('abd', 'abc')).toBe(false)
  expect(tokenMatches('', 'abc')).toBe(false)
  expect(tokenMatches('abcabc', 'abc')).toBe(false)
})
