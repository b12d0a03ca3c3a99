import { expect, it } from 'vitest'
import { formatListenAddress, isLoopbackHost, parseListenAddress } from './net.js'

it('parses listen addresses', () => {
  expect(parseListenAddress('127.0.0.1:8443')).toEqual({ host: '127.0.0.1', port: 8443 })
  expect(parseListenAddress(':0')).toEqual({ host: '', port: 0 })
  expect(parseListenAddress('[::1]:9')).toEqual({ host: '::1', port: 9 })
  expect(formatListenAddress({ host: '::1', port: 9 })).toBe('[::1]:9')
  expect(() => parseListenAddress('::1:9')).toThrow()
})

it('recognises loopback hosts', () => {
  for (const host of ['localhost', 'app.localhost', '127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1', 'LOCALHOST.']) {
    expect(isLoopbackHost(host), host).toBe(true)
  }
  for (const host of ['', '0.0.0.0', '10.0.0.1', 'example.com', 'localhost.example.com', '::', '128.0.0.1']) {
    expect(isLoopbackHost(host), host).toBe(false)
  }
})
