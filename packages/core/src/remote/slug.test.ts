import { describe, expect, it } from 'vitest'
import { slugOf } from './slug.js'

describe('slugOf', () => {
  it('lowercases, turns spaces into dashes, keeps only [a-z0-9-] and trims dashes', () => {
    expect(slugOf('Fix The Login')).toBe('fix-the-login')
    expect(slugOf('-café_bar 2-')).toBe('cafbar-2')
  })

  it('is at most 200 bytes, trimmed after the cut', () => {
    expect(slugOf('a'.repeat(199) + '-b')).toBe('a'.repeat(199))
    expect(slugOf('x'.repeat(300))).toHaveLength(200)
  })

  it('refuses a title that leaves nothing', () => {
    expect(() => slugOf('é_!')).toThrow(/empty slug/)
  })
})
