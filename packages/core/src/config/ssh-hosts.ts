import { quote } from '@svc/protocol'
import { HOST, PUBLIC_KEY_LINE, publicKeyOf, USER } from '../remote/ssh-host.js'
import type { ValueType } from './types.js'

/** One host of `ssh_hosts`: where ssh reaches it and the public key it must present. */
export interface SshHostEntry {
  host: string
  user?: string
  port?: number
  /** `<type> <base64>`, pinned: the one key svc's known_hosts for it holds. */
  host_key: string
}

export type SshHosts = Record<string, SshHostEntry>

/** A host's name in ssh_hosts: what `--host` and `ssh.host` say, and rows show ("on <name>"). */
export const SSH_HOST_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/

export function checkHostName(name: string): void {
  if (!SSH_HOST_NAME.test(name)) throw new Error(`${quote(name)} is not a host name for ssh_hosts: lowercase letters, digits and "-", at most 63, not starting with "-"`)
}

/** One entry checked, as config.json keeps it (the key's comment dropped); throws a message that says what to fix. */
export function sshHostEntry(name: string, stored: unknown): SshHostEntry {
  checkHostName(name)
  const where = `ssh_hosts.${name}`
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) throw new Error(`${where} must be an object {host, host_key, user?, port?}`)
  const { host, user, port, host_key: hostKey, ...unknown } = stored as Record<string, unknown>
  const extra = Object.keys(unknown)
  if (extra.length > 0) throw new Error(`${where} has unknown field ${quote(extra[0])}; it takes host, host_key, user and port`)
  if (typeof host !== 'string' || !HOST.test(host)) throw new Error(`${where}.host must be a host name or address (letters, digits, ".", "-", ":"; not starting with "-")`)
  if (user !== undefined && (typeof user !== 'string' || !USER.test(user))) throw new Error(`${where}.user must be a user name`)
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535)) {
    throw new Error(`${where}.port must be a whole number from 1 to 65535`)
  }
  const key = publicKeyOf(hostKey)
  if (key === undefined) {
    throw new Error(`${where}.host_key must be ${PUBLIC_KEY_LINE}: svc pins it and never trusts a host on first use ("svc hosts add ${name} ${host} --scan" shows the key's fingerprint and asks)`)
  }
  return { host, ...(user === undefined ? {} : { user }), ...(port === undefined ? {} : { port }), host_key: key }
}

function decode(stored: unknown): SshHosts {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    throw new Error('expected a JSON object of hosts such as {"box":{"host":"box.internal","user":"me","host_key":"ssh-ed25519 AAAA…"}}')
  }
  return Object.fromEntries(Object.entries(stored).map(([name, entry]) => [name, sshHostEntry(name, entry)]))
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new Error(`expected ${what}, got ${quote(text)}`)
  }
}

/** `ssh_hosts`: a JSON object of hosts; `ssh_hosts.<name>` sets one from its JSON object. */
export const sshHosts: ValueType<SshHosts> = {
  name: 'ssh-hosts',
  parse: (text) => decode(parseJson(text, 'a JSON object of hosts')),
  decode,
  encode: (value) => value,
  format: (value) => JSON.stringify(value),
  entry: (name, text) => sshHostEntry(name, parseJson(text, 'a JSON object {host, host_key, user?, port?}')),
}
