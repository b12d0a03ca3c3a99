import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { quote } from '@svc/protocol'
import { memoized } from './memo.js'

export interface ListenAddress {
  host: string
  port: number
}

/** `host:port`, `[v6]:port` or `:port` (all interfaces); throws a message on anything else. */
export function parseListenAddress(text: string): ListenAddress {
  const match = /^(\[([0-9A-Fa-f:.]+)\]|[^:[\]\s]*):(\d{1,5})$/.exec(text)
  if (!match) throw new Error(`${quote(text)} is not an address; write host:port, [ipv6]:port or :port`)
  const host = match[2] ?? match[1] ?? ''
  const port = Number(match[3])
  if (port > 65535) throw new Error(`port ${port} in ${quote(text)} is out of range (0-65535)`)
  if (match[2] !== undefined && isIP(host) !== 6) throw new Error(`${quote(host)} in ${quote(text)} is not an IPv6 address`)
  return { host, port }
}

export function formatListenAddress({ host, port }: ListenAddress): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`
}

/**
 * The loopback predicate shared by listeners, auth and the web-tab proxy: `localhost`,
 * `*.localhost`, 127.0.0.0/8 and `::1`, including IPv4-mapped IPv6 (`::ffff:127.0.0.1`,
 * which a URL parser writes `[::ffff:7f00:1]`). ipaddr.js reads every textual form.
 */
export const isLoopbackHost = memoized((host: string): boolean => {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase().replace(/\.$/, '')
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback'
})

/** The loopback rule for a URL (what the web-tab proxy applies). */
export const isLoopbackUrl = memoized((url: string): boolean => {
  try {
    return isLoopbackHost(new URL(url).hostname)
  } catch {
    return false
  }
})
