import { describe, expect, it } from 'vitest'
import { address, bool, duration, envNames, formatDuration, int, map } from './types.js'

describe('config value types', () => {
  it('read booleans', () => {
    expect(bool.parse('true')).toBe(true)
    expect(bool.parse(' FALSE ')).toBe(false)
    expect(() => bool.parse('1')).toThrow('expected true or false')
    expect(() => bool.decode('true')).toThrow('got string "true"')
  })

  it('read bounded integers', () => {
    const type = int(1, 10)
    expect(type.parse('7')).toBe(7)
    expect(() => type.parse('11')).toThrow('from 1 to 10')
    expect(() => type.parse('2.5')).toThrow()
    expect(() => type.decode(2.5)).toThrow()
  })

  it('read durations in units or integer milliseconds, and format them exactly', () => {
    const type = duration(100)
    expect(type.parse('1500ms')).toBe(1500)
    expect(type.parse('30m')).toBe(1_800_000)
    expect(type.parse('2h')).toBe(7_200_000)
    expect(type.parse('250')).toBe(250)
    expect(type.decode(1000)).toBe(1000)
    expect(() => type.parse('50ms')).toThrow('at least 100ms')
    expect(() => type.parse('soon')).toThrow('expected a duration')
    expect(formatDuration(1500)).toBe('1500ms')
    expect(formatDuration(90_000)).toBe('90s')
    expect(formatDuration(1_800_000)).toBe('30m')
    expect(formatDuration(0)).toBe('0ms')
  })

  it('read lists of exact environment names from JSON or commas', () => {
    expect(envNames.parse('A, B_2')).toEqual(['A', 'B_2'])
    expect(envNames.parse('["GH_TOKEN"]')).toEqual(['GH_TOKEN'])
    expect(envNames.parse('')).toEqual([])
    expect(() => envNames.parse('AWS_*')).toThrow('no wildcards')
    expect(() => envNames.parse('[1]')).toThrow('list of strings')
  })

  it('read addresses', () => {
    for (const ok of ['', ':0', '127.0.0.1:8443', '[::1]:9000', 'localhost:80']) expect(address.parse(ok)).toBe(ok)
    for (const bad of ['8443', 'host:', 'a:b:c', '[zz]:1', '1.2.3.4:99999']) expect(() => address.parse(bad)).toThrow()
  })

  it('read maps of strings', () => {
    expect(map().parse('{"claude":"claude --model opus"}')).toEqual({ claude: 'claude --model opus' })
    expect(() => map().parse('[]')).toThrow('JSON object')
    expect(() => map().decode({ claude: 3 })).toThrow('"claude"')
  })
})
