import { describe, expect, it } from 'vitest'
import { climbs, splitUrl } from './path.js'

describe('climbs', () => {
  it('finds `..` in every spelling', () => {
    for (const path of ['/..', '/a/../b', '/%2e%2e/x', '/.%2E/x', '/%2E./x', '/a\\..\\b', '/a/%2e%2e%5cb']) expect(climbs(path), path).toBe(true)
  })

  it('lets through paths whose dots are not a `..` segment', () => {
    for (const path of ['/', '/main.js', '/a..b/c', '/...', '/%2e/x', '/src/%2e.hidden', '/@vite/client']) expect(climbs(path), path).toBe(false)
  })

  it('refuses a path that does not decode', () => {
    expect(climbs('/%E0%A4%A/x')).toBe(true)
  })
})

describe('splitUrl', () => {
  it('keeps the query with its `?`, undecoded', () => {
    expect(splitUrl('/a%20b?x=%20&y')).toEqual({ path: '/a%20b', search: '?x=%20&y' })
    expect(splitUrl('/a')).toEqual({ path: '/a', search: '' })
  })
})
