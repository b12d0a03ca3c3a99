import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { randomBytes, randomInt } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { alive, waitFor } from './wait.js'

/**
 * A place for a test's "remote" side: a network namespace of its own reached across a veth
 * pair where the machine allows one, else this machine's loopback. `label` says which, for
 * test titles and logs.
 */
export interface Place {
  label: string
  /** Where a server started here listens and the host reaches it. */
  address: string
  /** This host's address as seen from inside. */
  hostAddress: string
  /** Starts a process in the place; `env` replaces the environment, as spawn's does. */
  spawn(command: string, args: string[], options?: Pick<SpawnOptions, 'env' | 'cwd' | 'stdio'>): ChildProcess
  /** Kills what runs there and takes the place down; again does nothing. */
  remove(): Promise<void>
}

export interface Netns extends Place {
  name: string
  hostInterface: string
  nsInterface: string
}

const CAP_NET_ADMIN = 12
const CAP_SYS_ADMIN = 21 // `ip netns add` bind-mounts the namespace under /run/netns

/** `ip` by full path: it lives in /usr/sbin, off many PATHs, and a spawn's env may have none. */
const ip = ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'].find((path) => existsSync(path))

let available: boolean | undefined

/**
 * Whether this machine lets the tests make network namespaces: `ip` and the capabilities
 * it needs. SVC_TEST_NETNS=off says no, to run the loopback variants where it would say yes.
 */
export function netnsAvailable(): boolean {
  if (process.env.SVC_TEST_NETNS === 'off') return false
  if (available === undefined) {
    // No /proc (not Linux): no namespaces either.
    const status = existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : ''
    const caps = BigInt(`0x${/^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? '0'}`)
    const has = (cap: number) => ((caps >> BigInt(cap)) & 1n) === 1n
    available = ip !== undefined && has(CAP_NET_ADMIN) && has(CAP_SYS_ADMIN)
  }
  return available
}

/** For a test title: where `makePlace()` puts the remote on this machine. */
export function placeLabel(): string {
  return netnsAvailable() ? 'in a network namespace' : 'on loopback (this machine cannot make a network namespace)'
}

/** A namespace where the machine allows one, else loopback. */
export function makePlace(): Promise<Place> {
  return netnsAvailable() ? makeNetns() : Promise.resolve(loopback())
}

function loopback(): Place {
  const started = new Set<ChildProcess>()
  return {
    label: placeLabel(),
    address: '127.0.0.1',
    hostAddress: '127.0.0.1',
    spawn: (command, args, options = {}) => track(started, spawn(command, args, options)),
    remove: async () => {
      const pids = [...started].flatMap((child) => (child.pid !== undefined && child.exitCode === null && child.signalCode === null ? [child.pid] : []))
      started.clear()
      killAll(pids)
      await waitGone(pids)
    },
  }
}

const live = new Set<Netns>()
process.on('exit', () => [...live].forEach((netns) => takeDown(netns)))

/** Takes down every namespace this process made and has not removed: for `cleanup()`. */
export async function removeNamespaces(): Promise<void> {
  await Promise.all([...live].map((netns) => netns.remove()))
}

/**
 * A namespace `svc-<random>` with `lo` up and one end of a veth pair, the other end on the
 * host; the pair's addresses are a private /30 no interface here uses.
 */
export async function makeNetns(): Promise<Netns> {
  if (!netnsAvailable()) throw new Error('this machine cannot make network namespaces (needs ip, CAP_NET_ADMIN and CAP_SYS_ADMIN)')
  const id = randomBytes(4).toString('hex')
  const [hostAddress, nsAddress] = freeSubnet()
  const netns: Netns = {
    name: `svc-${id}`,
    // Interface names are at most 15 bytes.
    hostInterface: `svh${id}`,
    nsInterface: `svn${id}`,
    label: `in network namespace svc-${id}`,
    address: nsAddress,
    hostAddress,
    spawn: (command, args, options = {}) => spawn(ip!, ['netns', 'exec', netns.name, command, ...args], options),
    remove: async () => {
      if (!live.delete(netns)) return
      await waitGone(takeDown(netns))
    },
  }
  live.add(netns)
  try {
    ipText('netns', 'add', netns.name)
    ipText('link', 'add', netns.hostInterface, 'type', 'veth', 'peer', 'name', netns.nsInterface)
    ipText('link', 'set', netns.nsInterface, 'netns', netns.name)
    ipText('addr', 'add', `${hostAddress}/30`, 'dev', netns.hostInterface)
    ipText('link', 'set', netns.hostInterface, 'up')
    ipText('-n', netns.name, 'addr', 'add', `${nsAddress}/30`, 'dev', netns.nsInterface)
    ipText('-n', netns.name, 'link', 'set', netns.nsInterface, 'up')
    ipText('-n', netns.name, 'link', 'set', 'lo', 'up')
  } catch (error) {
    await netns.remove()
    throw error
  }
  return netns
}

/** Kills everything in the namespace, deletes the veth pair and the namespace; returns the killed pids. */
function takeDown(netns: Netns): number[] {
  const killed = new Set<number>()
  // Again until none is left: one may fork while the others are being killed.
  for (let round = 0; round < 5; round += 1) {
    const pids = attempt('netns', 'pids', netns.name).split('\n').filter(Boolean).map(Number).filter(alive)
    if (pids.length === 0) break
    killAll(pids)
    pids.forEach((pid) => killed.add(pid))
  }
  attempt('link', 'del', netns.hostInterface)
  attempt('netns', 'del', netns.name)
  return [...killed]
}

/** Runs `ip` with `args`; its output. */
export function ipText(...args: string[]): string {
  return execFileSync(ip!, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

/** For taking down: what is already gone is fine. */
function attempt(...args: string[]): string {
  try {
    return ipText(...args)
  } catch {
    return ''
  }
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already ended.
    }
  }
}

/** Until none of them runs. */
function waitGone(pids: number[]): Promise<unknown> {
  return waitFor(() => !pids.some(alive) || undefined)
}

function track(started: Set<ChildProcess>, child: ChildProcess): ChildProcess {
  started.add(child)
  child.on('exit', () => started.delete(child))
  return child
}

/** Host and namespace ends of a random private /30 that no address here falls in. */
function freeSubnet(): [string, string] {
  const used = [...ipText('-o', '-4', 'addr', 'show').matchAll(/inet (\d+\.\d+\.\d+\.\d+)\/(\d+)/g)].map(([, address, bits]) => ({
    network: toNumber(address!) & mask(Number(bits)),
    bits: Number(bits),
  }))
  for (let tries = 0; tries < 100; tries += 1) {
    const base = (10 << 24) | (randomInt(256) << 16) | (randomInt(256) << 8) | (randomInt(64) << 2)
    const overlaps = used.some(({ network, bits }) => ((base & mask(Math.min(bits, 30))) >>> 0) === ((network & mask(Math.min(bits, 30))) >>> 0))
    if (!overlaps) return [toAddress(base + 1), toAddress(base + 2)]
  }
  throw new Error('no free /30 in 10.0.0.0/8 after 100 tries')
}

const mask = (bits: number) => (bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0)
const toNumber = (address: string) => address.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0)
const toAddress = (value: number) => [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.')
