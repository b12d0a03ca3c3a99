import { expect, it } from 'vitest'
import { schedulePreview } from './schedule-words'

it('reads a cron expression in words, and says when it is not one', () => {
  expect(schedulePreview('0 9 * * 1-5')).toBe('At 09:00, Monday through Friday')
  expect(schedulePreview('')).toBe('')
  expect(schedulePreview('every day')).toMatch(/^not a cron expression/)
})
