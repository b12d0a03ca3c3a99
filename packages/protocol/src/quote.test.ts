import { expect, it } from 'vitest'
import { excerpt, quote, QUOTED_PREFIX } from './quote.js'

it('quotes short values whole', () => {
  expect(quote('main')).toBe('"main"')
  expect(quote('a'.repeat(QUOTED_PREFIX))).toBe(`"${'a'.repeat(QUOTED_PREFIX)}"`)
})

it('cuts a long value to its prefix and says how long it was', () => {
  expect(quote('a'.repeat(1_700_000))).toBe(`"${'a'.repeat(QUOTED_PREFIX)}…" (1700000 characters)`)
})

it('never cuts a character in half', () => {
  const text = `${'a'.repeat(QUOTED_PREFIX - 1)}😀${'b'.repeat(10)}`
  expect(quote(text)).toBe(`"${'a'.repeat(QUOTED_PREFIX - 1)}…" (${text.length} characters)`)
})

it('bounds unquoted values the same way', () => {
  expect(excerpt('/tmp/x')).toBe('/tmp/x')
  expect(excerpt('/'.repeat(100))).toBe(`${'/'.repeat(QUOTED_PREFIX)}… (100 characters)`)
})
