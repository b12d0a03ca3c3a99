import { describe, expect, it } from 'vitest'
import { sampleSession } from '../sample.js'
import { age, idleWords, projectName } from './words.js'

describe('words', () => {
  it('says idle reasons in plain words, with the restore failure when the daemon gave up', () => {
    expect(idleWords(sampleSession({ idle_reason: 'prompt-not-delivered' }))).toBe('waiting: prompt not delivered')
    expect(idleWords(sampleSession({ idle_reason: 'usage-limit' }))).toBe('usage limit')
    expect(idleWords(sampleSession({ idle_reason: 'restore-gave-up', lost_restore_failure: { attempts: 6, error: 'no such file' } }))).toBe(
      'restore gave up after 6 attempts: no such file',
    )
    expect(idleWords(sampleSession())).toBe('')
  })

  it('gives ages in their largest whole unit', () => {
    const now = Date.parse('2026-01-01T12:00:00Z')
    const ago = (ms: number) => new Date(now - ms).toISOString()
    expect([age(ago(400), now), age(ago(12_000), now), age(ago(5 * 60_000 + 59_000), now), age(ago(3 * 3_600_000), now), age(ago(2 * 86_400_000), now)]).toEqual([
      '0s',
      '12s',
      '5m',
      '3h',
      '2d',
    ])
    expect(age(undefined, now)).toBe('-')
  })

  it('names a project by its checkout directory', () => {
    expect(projectName('/home/me/src/shop/')).toBe('shop')
  })
})
