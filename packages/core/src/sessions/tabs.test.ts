import { expect, it } from 'vitest'
import { Refused } from '../errors.js'
import { defaultTabName, findTab, sanitizeTabName, unique } from './tabs.js'

it('sanitizes runs of other characters into one dash, and numbers duplicates', () => {
  expect(sanitizeTabName('dev server (3000)')).toBe('dev-server-3000-')
  expect(sanitizeTabName('ok_name-1')).toBe('ok_name-1')
  expect(unique('shell', new Set(['shell', 'shell-2']))).toBe('shell-3')
  expect(defaultTabName(2, '/usr/bin/npm run dev')).toBe('npm')
  expect(defaultTabName(3)).toBe('web')
})

it('finds tabs by id first and never falls back from an unknown id', () => {
  const tabs = [
    { id: 'a', kind: 0, name: 'agent' },
    { id: 'b', kind: 1, name: 'shell' },
  ]
  expect(findTab(tabs, { tab_id: 'b', tab_index: 0 }, 't').index).toBe(1)
  expect(() => findTab(tabs, { tab_id: 'zz', tab_name: 'shell' }, 't')).toThrow(Refused)
  expect(findTab(tabs, { tab_name: 'shell' }, 't').tab.id).toBe('b')
  expect(() => findTab(tabs, { tab_index: 2 }, 't')).toThrow('no tab at index 2')
  expect(() => findTab(tabs, {}, 't')).toThrow('is required')
})
