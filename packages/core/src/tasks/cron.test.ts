import { expect, it } from 'vitest'
import { checkCron, countOccurrences, nextOccurrence } from './cron.js'

it.each([
  ['*/5 * * * *', 'ok'],
  ['0 9 * * 1-5', 'ok'],
  ['0 0 29 2 *', 'ok'],
  ['0 0 30 2 *', 'never'],
  ['0 0 31 4,6 *', 'never'],
  ['0 0 30 2 1', 'ok'],
  ['0 0 30 2', 'invalid'],
  ['* * * * * *', 'invalid'],
  ['@daily', 'invalid'],
  ['', 'invalid'],
  ['61 * * * *', 'invalid'],
  ['a b c d e', 'invalid'],
])('judges %j as %s', (expr, kind) => {
  expect(checkCron(expr, 'task').kind).toBe(kind)
})

it('names what is wrong', () => {
  expect(checkCron('0 0 30 2 *', 't')).toEqual({ kind: 'never', reason: 'day of month 30 never occurs in month 2' })
  expect(checkCron('0 0 30 2', 't')).toMatchObject({ message: expect.stringContaining('must have 5 fields') })
  expect(checkCron('61 * * * *', 't')).toMatchObject({ message: expect.stringContaining('61') })
})

it('keeps hashed fields stable per task', () => {
  const first = checkCron('H * * * *', 'task-a')
  const again = checkCron('H * * * *', 'task-a')
  if (first.kind !== 'ok' || again.kind !== 'ok') throw new Error('expected ok')
  const at = new Date('2026-01-01T00:00:00Z')
  expect(nextOccurrence(first.expression, at)).toEqual(nextOccurrence(again.expression, at))
})

it('counts occurrences in (from, to], stopping past the cap', () => {
  const cron = checkCron('*/10 * * * *', 'count')
  if (cron.kind !== 'ok') throw new Error('expected ok')
  const from = new Date('2026-01-01T00:00:00Z')
  expect(countOccurrences(cron.expression, from, new Date('2026-01-01T00:30:00Z'), 100)).toBe(3)
  expect(countOccurrences(cron.expression, from, new Date('2026-01-01T00:29:59Z'), 100)).toBe(2)
  expect(countOccurrences(cron.expression, from, new Date('2026-02-01T00:00:00Z'), 100)).toBe(101)
  expect(nextOccurrence(cron.expression, from)?.toISOString()).toBe('2026-01-01T00:10:00.000Z')
})
