import { expect, it } from 'vitest'
import { checkCron, nextOccurrence } from './cron.js'

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

it('finds the next occurrence strictly after an instant', () => {
  const cron = checkCron('*/10 * * * *', 'next')
  if (cron.kind !== 'ok') throw new Error('expected ok')
  expect(nextOccurrence(cron.expression, new Date('2026-01-01T00:00:00Z'))?.toISOString()).toBe('2026-01-01T00:10:00.000Z')
  expect(nextOccurrence(cron.expression, new Date('2026-01-01T00:09:59.999Z'))?.toISOString()).toBe('2026-01-01T00:10:00.000Z')
})
