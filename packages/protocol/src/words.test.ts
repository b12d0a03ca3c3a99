import { describe, expect, it } from 'vitest'
import { IDLE_REASONS } from './vocab.js'
import { ageWords, idleReasonWords } from './words.js'

describe('idleReasonWords', () => {
  it('has distinct words for every idle reason, and none for no reason', () => {
    const words = IDLE_REASONS.map(idleReasonWords)
    expect(words.every((text) => text.length > 0)).toBe(true)
    expect(new Set(words).size).toBe(IDLE_REASONS.length)
    expect(idleReasonWords('prompt-not-delivered')).toBe('waiting: prompt not delivered')
    expect(idleReasonWords(undefined)).toBe('')
  })
})

describe('ageWords', () => {
  const now = Date.parse('2026-11-24T12:00:00Z')
  it.each([
    ['2026-11-24T11:59:48Z', '12s'],
    ['2026-11-24T11:56:00Z', '4m'],
    ['2026-11-24T09:00:00Z', '3h'],
    ['2026-11-22T12:00:00Z', '2d'],
    ['2026-11-24T12:00:05Z', '0s'],
    [undefined, ''],
    ['not a time', ''],
  ])('%s is %s ago', (at, words) => {
    expect(ageWords(at, now)).toBe(words)
  })
})
