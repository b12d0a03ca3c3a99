import { expect, it } from 'vitest'
import { suggestName } from './names.js'

it('suggests adjective-noun names not already taken', () => {
  const taken = new Set<string>()
  for (let i = 0; i < 200; i++) {
    const name = suggestName(taken)
    expect(name).toMatch(/^[a-z]+-[a-z]+(-\d+)?$/)
    expect(taken.has(name)).toBe(false)
    taken.add(name)
  }
})

it('numbers a name once random pairs keep colliding, still never a taken one', () => {
  const taken = new Set<string>()
  let name = suggestName(taken)
  while (!/-\d+$/.test(name)) {
    taken.add(name)
    name = suggestName(taken)
  }
  expect(taken.has(name)).toBe(false)
  expect(taken.size).toBeGreaterThan(1000)
})
