import { describe, expect, it } from 'vitest'
import { CorruptFile, InvalidRequest, Refused } from '../errors.js'
import { deletePath, parseConfig, resolveKey } from './document.js'

describe('parseConfig', () => {
  it('reads nested dotted keys and defaults the rest', () => {
    const { settings, warnings } = parseConfig('{"network":{"listen_addr":""},"daemon_poll_interval":"2s"}', 'c.json')
    expect(settings['network.listen_addr']).toBe('')
    expect(settings.daemon_poll_interval).toBe(2000)
    expect(settings.default_program).toBe('claude')
    expect(warnings).toEqual([])
  })

  it('treats a missing or empty file as all defaults', () => {
    expect(parseConfig(undefined, 'c.json').settings['network.listen_addr']).toBe('127.0.0.1:8443')
    expect(parseConfig('  ', 'c.json').settings.limit_auto_resume).toBe(false)
  })

  it('records the keys config.json sets under any spelling, an empty map included', () => {
    const { written } = parseConfig('{"require_token":true,"network":{"listen_addr":""},"program_overrides":{}}', 'c.json')
    expect([...written].sort()).toEqual(['network.listen_addr', 'network.require_token', 'program_overrides'])
    expect(parseConfig(undefined, 'c.json').written.size).toBe(0)
  })

  it('reads legacy alias spellings, the canonical one winning', () => {
    expect(parseConfig('{"require_token":true}', 'c.json').settings['network.require_token']).toBe(true)
    const both = parseConfig('{"require_token":true,"network":{"require_token":false}}', 'c.json')
    expect(both.settings['network.require_token']).toBe(false)
    expect(both.warnings[0]).toContain('are both set; using network.require_token')
  })

  it('ignores auto_yes, removed key bindings and unknown keys with warnings', () => {
    const { warnings, settings } = parseConfig(
      '{"auto_yes":true,"keys":{"open_pr":"p"},"network":{"mystery":1},"default_program":"codex"}',
      'c.json',
    )
    expect(settings.default_program).toBe('codex')
    expect(warnings).toEqual([
      expect.stringContaining('auto_yes is ignored'),
      'unknown key "keys" is ignored',
      'unknown key "network.mystery" is ignored',
    ])
  })

  it('names the file and the key of a bad value', () => {
    expect(() => parseConfig('{"log_max_size_mb":"big"}', '/h/config.json')).toThrow(CorruptFile)
    expect(() => parseConfig('{"log_max_size_mb":"big"}', '/h/config.json')).toThrow('/h/config.json: key "log_max_size_mb"')
    expect(() => parseConfig('{"cors_allowed_origins":"x"}', 'c.json')).toThrow('key "cors_allowed_origins"')
    expect(() => parseConfig('[1]', 'c.json')).toThrow('must hold a JSON object')
    expect(() => parseConfig('{', 'c.json')).toThrow('c.json is not valid JSON')
  })
})

describe('resolveKey', () => {
  it('resolves canonical names, aliases and map entries', () => {
    expect(resolveKey('network.require_token').name).toBe('network.require_token')
    expect(resolveKey('require_token').name).toBe('network.require_token')
    expect(resolveKey('program_overrides.claude')).toMatchObject({ name: 'program_overrides', entry: 'claude' })
    expect(() => resolveKey('network.listen_addr.x')).toThrow(InvalidRequest)
    expect(() => resolveKey('auto_yes')).toThrow(Refused)
  })
})

it('deletePath prunes parents it empties', () => {
  const raw = { network: { require_token: true }, keep: 1 }
  deletePath(raw, 'network.require_token')
  expect(raw).toEqual({ keep: 1 })
})
