import { describe, expect, it } from 'vitest'
import { formatListenAddress, isLoopbackHost, isLoopbackUrl, parseListenAddress } from './net.js'

it('parses listen addresses', () => {
  expect(parseListenAddress('127.0.0.1:8443')).toEqual({ host: '127.0.0.1', port: 8443 })
  expect(parseListenAddress(':0')).toEqual({ host: '', port: 0 })
  expect(parseListenAddress('[::1]:9')).toEqual({ host: '::1', port: 9 })
  expect(formatListenAddress({ host: '::1', port: 9 })).toBe('[::1]:9')
  expect(() => parseListenAddress('::1:9')).toThrow()
})

describe('the loopback predicate', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST.', true],
    ['app.localhost', true],
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['127.255.255.255', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['[::ffff:7f00:1]', true],
    ['::ffff:7f08:90a', true],
    ['', false],
    ['0.0.0.0', false],
    ['10.0.0.1', false],
    ['128.0.0.1', false],
    ['126.255.255.255', false],
    ['::', false],
    ['::2', false],
    ['::ffff:10.0.0.1', false],
    ['[::ffff:a00:1]', false],
    ['example.com', false],
    ['localhost.example.com', false],
    ['notlocalhost', false],
  ])('host %j is loopback: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback)
  })

  it.each([
    ['http://localhost:3000/', true],
    ['http://app.localhost/', true],
    ['http://127.0.0.1:3000/', true],
    ['http://[::1]:3000/', true],
    ['http://[::ffff:127.0.0.1]:3000/', true],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', true],
    ['http://0x7f.1/', true],
    ['http://[::ffff:10.0.0.1]:3000/', false],
    ['https://example.com/', false],
    ['http://127.0.0.1.example.com/', false],
    ['not a url', false],
  ])('url %j is loopback: %s', (url, loopback) => {
    expect(isLoopbackUrl(url)).toBe(loopback)
  })
})
