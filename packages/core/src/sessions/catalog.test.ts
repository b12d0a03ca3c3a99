import { describe, expect, it } from 'vitest'
import { CONFIG_KEYS, CONFIG_KEY_NAMES, type Settings } from '../config/keys.js'
import { backendOf, backends } from './catalog.js'

const defaults = Object.fromEntries(CONFIG_KEY_NAMES.map((name) => [name, CONFIG_KEYS[name].default])) as unknown as Settings

function hook(values: Partial<Settings>, distrust?: string) {
  const inForce = { settings: { ...defaults, ...values }, ...(distrust ? { distrust } : {}) }
  return backends(inForce, undefined).backends.find((entry) => entry.name === 'hook')
}

function docker(values: Partial<Settings>, engineDown?: string) {
  return backends({ settings: { ...defaults, ...values } }, engineDown).backends.find((entry) => entry.name === 'docker')
}

describe('the hook backend', () => {
  const launch = { 'remote_hooks.launch_cmd': './launch.sh', 'remote_hooks.delete_cmd': './delete.sh' }

  const provision = { 'remote_hooks.provision_cmd': './provision.sh', 'remote_hooks.delete_cmd': './delete.sh' }

  it('is available with a trusted launch_cmd or provision_cmd, and delete_cmd', () => {
    for (const hooks of [launch, provision]) {
      expect(hook(hooks)).toMatchObject({ status: 'available' })
      expect(hook(hooks)?.reason).toBeUndefined()
    }
  })

  it('says why not', () => {
    expect(hook({})?.reason).toContain('sets neither remote_hooks.provision_cmd nor remote_hooks.launch_cmd')
    expect(hook(launch, 'the repository config /r/.svc/config.json is not trusted')?.reason).toContain('/r/.svc/config.json is not trusted')
    expect(hook({ 'remote_hooks.launch_cmd': './launch.sh' })?.reason).toContain('remote_hooks.delete_cmd is not set')
    expect(hook({ ...launch, 'remote_hooks.provision_cmd': './p.sh' })?.reason).toContain('both set; set exactly one')
    expect(hook({ 'remote_hooks.provision_cmd': './p.sh' })?.reason).toBe('remote_hooks.delete_cmd is not set; it is required beside remote_hooks.provision_cmd')
  })

  it('is the default a repository names, and what force_remote picks unless backend is given', () => {
    const inForce = { settings: { ...defaults, ...launch, backend: 'hook' } }
    expect(backends(inForce, undefined)).toMatchObject({ default: 'hook', default_status: 'available' })
    expect(backendOf({}, inForce)).toBe('hook')
    expect(backendOf({ force_remote: true }, { settings: { ...defaults, ...launch } })).toBe('hook')
    expect(backendOf({ backend: 'local', force_remote: true }, inForce)).toBe('local')
    expect(() => backendOf({ backend: 'hook' }, { settings: defaults })).toThrow(/backend "hook" is not available \(.*launch_cmd\); available: local/)
    expect(() => backendOf({ backend: 'local', host: 'box' }, inForce)).toThrow(/host "box" names an ssh_hosts entry, which only backend "ssh" runs on; this create's backend is "local"/)
  })
})

describe('the docker backend', () => {
  it('is available when the engine answers and docker.image is set', () => {
    expect(docker({ 'docker.image': 'svc-dev:1' })).toEqual({ name: 'docker', status: 'available', label: 'Docker (a container of docker.image)' })
  })

  it('says why not: the engine first, then the image', () => {
    const down = 'the Docker Engine does not answer at its default socket (Cannot connect); start dockerd, or set docker.host'
    expect(docker({ 'docker.image': 'svc-dev:1' }, down)).toMatchObject({ status: 'unavailable', reason: down })
    expect(docker({})?.reason).toMatch(/^docker\.image is not set: svc image build/)
    expect(() => backendOf({ backend: 'docker' }, { settings: { ...defaults, 'docker.image': 'svc-dev:1' } }, down)).toThrow(`backend "docker" is not available (${down}); available: local`)
    expect(backendOf({ backend: 'docker' }, { settings: { ...defaults, 'docker.image': 'svc-dev:1' } })).toBe('docker')
  })
})

describe('the ssh backend', () => {
  const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl'
  const hosts = { ssh_hosts: { box: { host: 'box.internal', host_key: key }, gpu: { host: '10.0.0.7', port: 2222, host_key: key } } }
  const ssh = (values: Partial<Settings>) => backends({ settings: { ...defaults, ...values } }, undefined).backends.find((entry) => entry.name === 'ssh')
  const create = (values: Partial<Settings>, host: string) => backendOf({ backend: 'ssh', host }, { settings: { ...defaults, ...values } })

  it('says why not: no ssh_hosts, no host picked, a host ssh_hosts does not name', () => {
    expect(ssh({})).toMatchObject({ status: 'unavailable', hosts: [], reason: expect.stringContaining('no ssh_hosts are set') })
    expect(ssh(hosts)).toMatchObject({ status: 'unavailable', hosts: ['box', 'gpu'], reason: expect.stringContaining('set ssh.host to one of box, gpu') })
    expect(ssh({ ...hosts, 'ssh.host': 'nope' })?.reason).toBe('ssh host "nope" is not in ssh_hosts; known: box, gpu')
    expect(() => create(hosts, 'nope')).toThrow(/backend "ssh" is not available \(ssh host "nope" is not in ssh_hosts/)
  })

  it("is available on the repository's host, listed first, or on the one a create picks", () => {
    expect(ssh({ ...hosts, 'ssh.host': 'gpu' })).toMatchObject({ status: 'available', hosts: ['gpu', 'box'] })
    expect(create(hosts, 'box')).toBe('ssh')
    expect(create({ ...hosts, 'ssh.host': 'nope' }, 'gpu')).toBe('ssh')
  })
})
