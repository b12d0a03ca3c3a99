import { expect, it } from 'vitest'
import { ago } from './words.js'

it('says how long ago a time was in its largest whole unit, "just now" under a minute', () => {
  const now = Date.parse('2026-01-01T12:00:00Z')
  const before = (ms: number) => new Date(now - ms).toISOString()
  expect([0, 59_999, 60_000, 2 * 60_000 + 59_000, 3 * 3_600_000, 2 * 86_400_000].map((ms) => ago(before(ms), now))).toEqual([
    'just now',
    'just now',
    '1m ago',
    '2m ago',
    '3h ago',
    '2d ago',
  ])
  // A time ahead of this clock (another machine's) is not "in 5s": it is now.
  expect(ago(before(-5_000), now)).toBe('just now')
  expect(ago('not a time', now)).toBe('not a time')
})
