import { describe, expect, it } from 'vitest'
import type { Key } from 'ink'
import { editText } from './edit-text.js'
import { keypresses } from './use-keys.js'

const key = (pressed: Partial<Key> = {}) => pressed as Key

describe('editText', () => {
  it('appends typed text, erases with backspace and Ctrl-U, and leaves other keys alone', () => {
    expect(editText('ab', 'c d', key())).toBe('abc d')
    expect(editText('abc', '', key({ backspace: true }))).toBe('ab')
    expect(editText('abc', '', key({ delete: true }))).toBe('ab')
    expect(editText('abc', 'u', key({ ctrl: true }))).toBe('')
    expect(editText('abc', '', key({ return: true }))).toBeUndefined()
    expect(editText('abc', '', key({ upArrow: true }))).toBeUndefined()
  })
})

describe('keypresses', () => {
  it('splits a read of several plain keys into one key each, enter and backspace included', () => {
    const split = keypresses('ab\rc\x7f', key())
    expect(split.map(([input]) => input)).toEqual(['a', 'b', '', 'c', ''])
    expect(split[2]?.[1].return).toBe(true)
    expect(split[4]?.[1].backspace).toBe(true)
  })

  it('leaves single keys and escape sequences whole', () => {
    expect(keypresses('x', key())).toEqual([['x', {}]])
    expect(keypresses('[A', key({ upArrow: true, escape: true }))).toHaveLength(1)
  })
})
