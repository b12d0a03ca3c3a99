import { describe, expect, it } from 'vitest'
import { parsedEdit, resolveKey } from './document.js'
import { sshHosts } from './ssh-hosts.js'

const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl'

describe('ssh_hosts', () => {
  it('keeps a host as ssh reaches it, its key pinned without its comment', () => {
    expect(sshHosts.parse(JSON.stringify({ box: { host: 'box.internal', user: 'me', port: 2222, host_key: `${key} root@box` } }))).toEqual({
      box: { host: 'box.internal', user: 'me', port: 2222, host_key: key },
    })
  })

  it('refuses, saying what to fix, a bad name, host, user, port, key or field', () => {
    const parse = (hosts: unknown) => () => sshHosts.decode(hosts)
    expect(parse({ Box: { host: 'b', host_key: key } })).toThrow('"Box" is not a host name for ssh_hosts')
    expect(parse({ box: { host: '-oProxyCommand=x', host_key: key } })).toThrow('ssh_hosts.box.host must be a host name')
    expect(parse({ box: { host: 'b', user: '-l', host_key: key } })).toThrow('ssh_hosts.box.user must be a user name')
    expect(parse({ box: { host: 'b', port: 70000, host_key: key } })).toThrow('ssh_hosts.box.port must be a whole number')
    expect(parse({ box: { host: 'b' } })).toThrow('ssh_hosts.box.host_key must be one public key line')
    expect(parse({ box: { host: 'b', host_key: `${key}\nssh-rsa AAAA` } })).toThrow('host_key must be one public key line')
    expect(parse({ box: { host: 'b', host_key: key, proxy: 'x' } })).toThrow('unknown field "proxy"')
    expect(parse([])).toThrow('expected a JSON object of hosts')
  })

  it('sets one host by ssh_hosts.NAME, checked as a whole entry', () => {
    const target = resolveKey('ssh_hosts.box')
    expect(target).toMatchObject({ name: 'ssh_hosts', entry: 'box' })
    const raw: Record<string, unknown> = {}
    parsedEdit(target, 'ssh_hosts.box', JSON.stringify({ host: 'b', host_key: `${key} c` }))(raw)
    expect(raw).toEqual({ ssh_hosts: { box: { host: 'b', host_key: key } } })
    expect(() => parsedEdit(target, 'ssh_hosts.box', '{"host":"b"}')).toThrow('ssh_hosts.box: ssh_hosts.box.host_key must be one public key line')
  })
})
