import { describe, expect, it } from 'vitest'
import { parseEndpoint, redact } from './endpoint.js'

describe('parseEndpoint', () => {
  it('takes one object, whitespace around it, and maps ws(s) to http(s)', () => {
    expect(parseEndpoint('\n {"url": "ws://10.1.2.2:4000/", "token": "t0k"}\n')).toEqual({ url: 'http://10.1.2.2:4000', token: 't0k' })
    expect(parseEndpoint('{"url":"https://h.example","token":"x"}').url).toBe('https://h.example')
  })

  it('refuses other output on stdout, never quoting the token', () => {
    const error = () => parseEndpoint('cloning...\n{"url":"http://h:1","token":"s3cret-value"}')
    expect(error).toThrow(/only one JSON object/)
    expect(error).not.toThrow(/s3cret-value/)
  })

  it('refuses a missing field, naming it', () => {
    expect(() => parseEndpoint('{"url":"http://h:1"}')).toThrow(/lacks token/)
    expect(() => parseEndpoint('{"token":"abc"}')).toThrow(/lacks url/)
  })

  it('refuses a url that is not http(s) or ws(s)', () => {
    expect(() => parseEndpoint('{"url":"ftp://h:1","token":"abc"}')).toThrow(/must be http\(s\) or ws\(s\)/)
  })
})

describe('redact', () => {
  it('replaces given secrets and any JSON token value', () => {
    expect(redact('a "token": "zzz" b yyy', 'yyy')).toBe('a "token": "[redacted]" b [redacted]')
  })
})
