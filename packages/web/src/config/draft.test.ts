import { describe, expect, it } from 'vitest'
import { draftOf, durationParts, durationText, textOf } from './draft'

describe('a config editor draft', () => {
  it('gives back the value GetConfig showed when nothing was edited', () => {
    for (const [type, value] of [
      ['list', '["https://a.example","https://b.example"]'],
      ['env-names', '[]'],
      ['map', '{"claude":"claude --model opus"}'],
      ['duration', '30m'],
      ['bool', 'true'],
    ] as const) {
      expect(textOf(draftOf(type, value))).toBe(value)
    }
  })

  it('leaves blank rows out of what it sends', () => {
    expect(textOf({ kind: 'list', items: ['HOME', ' ', ''] })).toBe('["HOME"]')
    expect(textOf({ kind: 'map', rows: [['claude', 'x'], ['', '']] })).toBe('{"claude":"x"}')
    // A row with only a value is sent, for the daemon to judge.
    expect(textOf({ kind: 'map', rows: [['', 'x']] })).toBe('{"":"x"}')
  })

  it('splits a duration into amount and unit and joins it back', () => {
    expect(durationParts('1500ms')).toEqual({ amount: '1500', unit: 'ms' })
    expect(durationParts('30m')).toEqual({ amount: '30', unit: 'm' })
    expect(durationParts('2h')).toEqual({ amount: '2', unit: 'h' })
    expect(durationParts('250')).toEqual({ amount: '250', unit: 'ms' })
    expect(durationText(' 45 ', 's')).toBe('45s')
  })
})
