import { expect, it } from 'vitest'
import { CONFIG_KEYS } from '../config/keys.js'
import { backoffMs, oneLine, survivalMs } from './recovery.js'

it('waits lost_restore_backoff (10 s by default) before the first attempt, doubling up to 5 minutes', () => {
  const base = CONFIG_KEYS.lost_restore_backoff.default
  expect(base).toBe(10_000)
  expect([0, 1, 2, 3, 4, 5, 9].map((failures) => backoffMs(base, failures))).toEqual([
    10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000,
  ])
})

it('stores a failure as one line of at most 512 characters', () => {
  expect(oneLine('  spawn failed:\n\tno such file\r\n  or directory \n')).toBe('spawn failed: no such file or directory')
  expect(oneLine(`${'x'.repeat(300)}\n${'y'.repeat(300)}`)).toBe(`${'x'.repeat(300)} ${'y'.repeat(211)}`)
})

it('counts an attempt a success after two poll intervals alive, never less than a second', () => {
  expect(survivalMs(200)).toBe(1_000)
  expect(survivalMs(500)).toBe(1_000)
  expect(survivalMs(2_000)).toBe(4_000)
})
