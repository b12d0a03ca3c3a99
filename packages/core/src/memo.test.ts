import { expect, it } from 'vitest'
import { memoized } from './memo.js'

it('computes each key once, undefined results included, and empties itself at its limit', () => {
  const calls: string[] = []
  const length = memoized((key) => (calls.push(key), key === '' ? undefined : key.length), 2)
  expect([length('ab'), length('ab'), length(''), length('')]).toEqual([2, 2, undefined, undefined])
  expect(calls).toEqual(['ab', ''])
  length('abc') // the third key: the memo starts over
  length('ab')
  expect(calls).toEqual(['ab', '', 'abc', 'ab'])
})
