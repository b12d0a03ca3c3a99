import { describe, expect, it } from 'vitest'
import { knownHostsLine, parseProvisionedHost } from './ssh-host.js'
import { controlPathOf } from './ssh.js'

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINO6+fwDy47pylzTBV7GUGzLXac94Gd3g5Cy8d3D3PU0'

describe("provision_cmd's answer", () => {
  it('is one JSON object {host, host_key, user?, port?}, the key kept without its comment', () => {
    expect(parseProvisionedHost(` {"host":"10.0.0.2","host_key":"${KEY} root@vm","user":"dev","port":2222}\n`)).toEqual({ host: '10.0.0.2', hostKey: KEY, user: 'dev', port: 2222 })
    expect(parseProvisionedHost(JSON.stringify({ host: 'vm.example.com', host_key: KEY }))).toEqual({ host: 'vm.example.com', hostKey: KEY })
  })

  it('is refused, saying what to fix, without a host key, with a malformed one, or with a host or user that could be an option', () => {
    expect(() => parseProvisionedHost(JSON.stringify({ host: 'vm' }))).toThrow(/printed no host_key: svc pins the host key and never trusts a host on first use/)
    expect(() => parseProvisionedHost(JSON.stringify({ host: 'vm', host_key: 'AAAA' }))).toThrow(/one public key line/)
    expect(() => parseProvisionedHost(JSON.stringify({ host: 'vm', host_key: `${KEY}\n${KEY}` }))).toThrow(/one public key line/)
    expect(() => parseProvisionedHost(JSON.stringify({ host: '-oProxyCommand=x', host_key: KEY }))).toThrow(/must be a host name or address/)
    expect(() => parseProvisionedHost(JSON.stringify({ host: 'vm', host_key: KEY, user: '-l' }))).toThrow(/user must be a user name/)
    expect(() => parseProvisionedHost(JSON.stringify({ host: 'vm', host_key: KEY, port: 70000 }))).toThrow(/port must be a whole number/)
    expect(() => parseProvisionedHost('booting the VM\n{"host":"vm"}')).toThrow(/stdout must be only one JSON object \{host, host_key, user\?, port\?\}/)
  })
})

describe('the pinned known_hosts line', () => {
  it('names the port unless it is 22', () => {
    expect(knownHostsLine({ host: 'vm', hostKey: KEY })).toBe(`vm ${KEY}\n`)
    expect(knownHostsLine({ host: 'vm', port: 22, hostKey: KEY })).toBe(`vm ${KEY}\n`)
    expect(knownHostsLine({ host: '10.0.0.2', port: 2222, hostKey: KEY })).toBe(`[10.0.0.2]:2222 ${KEY}\n`)
  })
})

describe('the ControlMaster socket', () => {
  it('sits in the session directory when it fits a Unix socket with ssh temporary suffix, else under /tmp by a hash', () => {
    expect(controlPathOf('/home/u/.svc/remote-ssh/0123456789abcdef')).toBe('/home/u/.svc/remote-ssh/0123456789abcdef/c')
    const deep = `/home/u/${'x'.repeat(80)}/remote-ssh/0123456789abcdef`
    expect(controlPathOf(deep)).toMatch(/^\/tmp\/svc-ssh-[0-9a-f]{16}$/)
    expect(controlPathOf(deep)).toBe(controlPathOf(deep))
  })
})
