import { hookAnswer } from './endpoint.js'

/** The host provision_cmd made: where ssh reaches it and the public key it must present. */
export interface ProvisionedHost {
  host: string
  port?: number
  user?: string
  /** `<type> <base64>`: the one key the session's known_hosts holds. */
  hostKey: string
}

/** A host name or address (IPv6 too) ssh takes as it is: never an option (`-…`), no spaces or `@`. */
export const HOST = /^(?!-)[A-Za-z0-9._:-]+$/
export const USER = /^(?!-)[A-Za-z0-9._][A-Za-z0-9._-]*$/
const KEY_TYPE = /^(ssh-[a-z0-9-]+|ecdsa-sha2-[a-z0-9-]+|sk-[a-z0-9@.-]+|[a-z0-9-]+-cert-v01@openssh\.com)$/
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/** How a public key line reads, for messages. */
export const PUBLIC_KEY_LINE = 'one public key line "<type> <base64> [comment]", such as "ssh-ed25519 AAAA… root@host"'

/** `<type> <base64>` of one public key line (its comment dropped), or undefined when it is not one. */
export function publicKeyOf(line: unknown): string | undefined {
  if (typeof line !== 'string' || /[\r\n]/.test(line.trim())) return undefined
  const [type = '', key = ''] = line.trim().split(/[ \t]+/)
  return KEY_TYPE.test(type) && BASE64.test(key) ? `${type} ${key}` : undefined
}

/**
 * What provision_cmd printed: only one JSON object `{host, host_key, user?, port?}`.
 * `host_key` is the host's public key line (`ssh-ed25519 AAAA… [comment]`, as in
 * /etc/ssh/ssh_host_ed25519_key.pub). Throws a message fit to show that says what to fix.
 */
export function parseProvisionedHost(stdout: string): ProvisionedHost {
  const { value, shown } = hookAnswer(stdout, '{host, host_key, user?, port?}')
  const { host, host_key: hostKey, user, port } = value
  if (typeof host !== 'string' || !HOST.test(host)) {
    throw new Error(`its host must be a host name or address (letters, digits, ".", "-", ":"; not starting with "-"): ${shown()}`)
  }
  if (hostKey === undefined || hostKey === '') {
    throw new Error(
      'it printed no host_key: svc pins the host key and never trusts a host on first use; print the public key ' +
        `line the host was made with (e.g. the contents of /etc/ssh/ssh_host_ed25519_key.pub) as host_key: ${shown()}`,
    )
  }
  const key = publicKeyOf(hostKey)
  if (key === undefined) throw new Error(`its host_key must be ${PUBLIC_KEY_LINE}: ${shown()}`)
  if (user !== undefined && (typeof user !== 'string' || !USER.test(user))) throw new Error(`its user must be a user name: ${shown()}`)
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535)) {
    throw new Error(`its port must be a whole number from 1 to 65535: ${shown()}`)
  }
  return { host, hostKey: key, ...(user === undefined ? {} : { user }), ...(port === undefined ? {} : { port }) }
}

/** The known_hosts line that pins the key for the host (and port, when not 22). */
export function knownHostsLine(host: Pick<ProvisionedHost, 'host' | 'port' | 'hostKey'>): string {
  const name = host.port !== undefined && host.port !== 22 ? `[${host.host}]:${host.port}` : host.host
  return `${name} ${host.hostKey}\n`
}
