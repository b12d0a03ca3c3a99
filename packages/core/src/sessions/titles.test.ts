import { expect, it } from 'vitest'
import { allocateTitle, checkTitle, titleFrom } from './titles.js'

it('accepts safe titles only', () => {
  for (const ok of ['a', 'fix-parser', 'Task_42', 'x'.repeat(64)]) expect(() => checkTitle(ok)).not.toThrow()
  for (const bad of ['', '-a', '_a', 'a b', 'a.b', 'a:b', 'a/b', 'x'.repeat(65)]) expect(() => checkTitle(bad)).toThrow()
})

it('makes titles from free text', () => {
  expect(titleFrom('Nightly report: deps!')).toBe('Nightly-report-deps')
  expect(titleFrom('***')).toBe('session')
})

it('allocates the asked title, a numbered base, or a suggestion', () => {
  const taken = new Set(['build', 'build-2'])
  expect(allocateTitle({ title: 'fresh' }, taken)).toBe('fresh')
  expect(() => allocateTitle({ title: 'build' }, taken)).toThrow('already exists')
  expect(allocateTitle({ title_base: 'build' }, taken)).toBe('build-3')
  expect(allocateTitle({}, taken)).toMatch(/^[a-z]+-[a-z]+$/)
})
