import { describe, expect, it } from 'vitest'
import { checkSocketPath, resolveServiceHome, servicePaths } from './home.js'

describe('SERVICE_HOME', () => {
  it('defaults to ~/.svc when unset or empty', () => {
    expect(resolveServiceHome({}, '/home/ada')).toBe('/home/ada/.svc')
    expect(resolveServiceHome({ SERVICE_HOME: '' }, '/home/ada')).toBe('/home/ada/.svc')
  })

  it('expands a leading ~ and ~/', () => {
    expect(resolveServiceHome({ SERVICE_HOME: '~' }, '/home/ada')).toBe('/home/ada')
    expect(resolveServiceHome({ SERVICE_HOME: '~/state/svc' }, '/home/ada')).toBe('/home/ada/state/svc')
    expect(resolveServiceHome({ SERVICE_HOME: '/srv/svc~1' }, '/home/ada')).toBe('/srv/svc~1')
  })

  it('refuses ~user', () => {
    expect(() => resolveServiceHome({ SERVICE_HOME: '~bob/svc' }, '/home/ada')).toThrow(/"~user" is not supported/)
  })

  it('places every file under the home', () => {
    const paths = servicePaths('/s')
    expect(paths.socket).toBe('/s/daemon-http.sock')
    expect(paths.tmuxSocket).toBe('/s/tmux.sock')
    expect(paths.tasks).toBe('/s/tasks.json')
  })
})

describe('socket path length', () => {
  it('accepts 107 bytes and refuses 108, naming path, length and fix', () => {
    expect(() => checkSocketPath(`/${'a'.repeat(106)}`)).not.toThrow()
    const long = `/${'a'.repeat(107)}`
    expect(() => checkSocketPath(long)).toThrow(`${long} is 108 bytes, over the 107-byte limit`)
    expect(() => checkSocketPath(long)).toThrow(/set SERVICE_HOME to a shorter directory/)
  })

  it('counts bytes, not characters', () => {
    expect(() => checkSocketPath(`/${'é'.repeat(54)}`)).toThrow(/109 bytes/)
  })
})
