import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createInterface } from 'node:readline/promises'
import type { Command } from 'commander'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { printTable } from '../output.js'
import { reply } from '../reply.js'
import { UsageError } from '../exit.js'

/** One host of ssh_hosts, as config.json keeps it. */
interface SshHost {
  host: string
  user?: string
  port?: number
  host_key: string
}

/** `SHA256:<base64, no padding>` of a public key line, as ssh-keygen -l and ssh itself show it. */
export function fingerprint(keyLine: string): string {
  const blob = Buffer.from(keyLine.trim().split(/\s+/)[1] ?? '', 'base64')
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`
}

/** `USER@HOST[:PORT]` (user and port optional; an IPv6 address in brackets when it has a port). */
export function parseTarget(target: string): Pick<SshHost, 'host' | 'user' | 'port'> {
  const match = /^(?:([^@\s]+)@)?(\[[^\]]+\]|[^:@\s]+|[0-9a-fA-F:]+)(?::(\d+))?$/.exec(target)
  if (!match) throw new UsageError(`"${target}" is not USER@HOST[:PORT]`)
  const [, user, rawHost = '', port] = match
  const host = rawHost.replace(/^\[(.*)\]$/, '$1')
  const number = port === undefined ? undefined : Number(port)
  if (number !== undefined && (number < 1 || number > 65_535)) throw new UsageError(`port ${port} is not from 1 to 65535`)
  return { host, ...(user ? { user } : {}), ...(number ? { port: number } : {}) }
}

async function hostsNow(): Promise<Record<string, SshHost>> {
  const { entries } = await callDaemon(resolvePaths(), 'GetConfig', {})
  const entry = entries.find((candidate) => candidate.key === 'ssh_hosts')
  return entry ? (JSON.parse(entry.value) as Record<string, SshHost>) : {}
}

/** The host's keys as `ssh-keyscan` gets them from that host alone: `<type> <base64>` lines. */
function scan(host: string, port: number | undefined): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile('ssh-keyscan', ['-T', '10', ...(port ? ['-p', String(port)] : []), '--', host], { timeout: 30_000 }, (error, stdout) => {
      const keys = stdout
        .split('\n')
        .filter((line) => line && !line.startsWith('#'))
        .map((line) => line.trim().split(/\s+/).slice(1, 3).join(' '))
      if (keys.length > 0) return resolve(keys)
      reject(new Error(`ssh-keyscan got no host key from ${host}${port ? ` port ${port}` : ''}${error ? ` (${error.message.trim().split('\n').at(-1)})` : ''}; check the host and that sshd runs there`))
    })
  })
}

/** The one key scanned that is pinned: ed25519 when the host has one (ssh's own first choice), else the first. */
function preferred(keys: string[]): string {
  return keys.find((key) => key.startsWith('ssh-ed25519 ')) ?? (keys[0] as string)
}

/** Asks a person on the terminal; only "y" or "yes" is a yes. No terminal is a refusal: a key is never pinned unseen. */
async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new UsageError('--scan asks a person to check the key on a terminal, and stdin is not one; run it in a terminal, or pass the key you checked with --host-key')
  }
  const ask = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await ask.question(question)).trim())
  } finally {
    ask.close()
  }
}

async function add(name: string, target: string, options: { hostKey?: string; scan?: boolean }, command: Command): Promise<void> {
  if ((options.hostKey === undefined) === (options.scan !== true)) {
    throw new UsageError('give the host key: --host-key "ssh-ed25519 AAAA…" (from the host\'s /etc/ssh/ssh_host_ed25519_key.pub), or --scan to fetch it and check its fingerprint')
  }
  const reached = parseTarget(target)
  if (name in (await hostsNow())) throw new UsageError(`ssh host "${name}" is already in ssh_hosts; remove it first (svc hosts remove ${name})`)
  let hostKey = options.hostKey as string
  if (options.scan) {
    const keys = await scan(reached.host, reached.port)
    hostKey = preferred(keys)
    process.stderr.write(`${reached.host}${reached.port ? ` port ${reached.port}` : ''} presents:\n`)
    for (const key of keys) process.stderr.write(`  ${key === hostKey ? '*' : ' '} ${key.split(' ')[0]} ${fingerprint(key)}\n`)
    process.stderr.write("Compare the starred fingerprint with the host's own (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub there).\n")
    if (!(await confirm(`Pin ${hostKey.split(' ')[0]} ${fingerprint(hostKey)} for ${name}? [y/N] `))) {
      throw new Error(`not pinned: ssh host "${name}" was not added`)
    }
  }
  const entry: SshHost = { ...reached, host_key: hostKey }
  const change = await callDaemon(resolvePaths(), 'SetConfigValue', { key: `ssh_hosts.${name}`, value: JSON.stringify(entry) })
  reply(command, change, `added ssh host ${name}: ${target}, key ${fingerprint(hostKey)}`)
}

/** `svc hosts`: the ssh_hosts that `--backend ssh` sessions run on. */
export function hostsCommand(program: Command): void {
  const hosts = program.command('hosts').description('the ssh hosts sessions run on with --backend ssh (the global ssh_hosts), their host keys pinned')
  hosts
    .command('add <name> <target>')
    .description('add a host as NAME (lowercase letters, digits, "-") at USER@HOST[:PORT], its host key pinned')
    .option('--host-key <key>', 'the public key line the host presents, e.g. "ssh-ed25519 AAAA…" (its /etc/ssh/ssh_host_ed25519_key.pub)')
    .option('--scan', "fetch the host's keys with ssh-keyscan (from that host only), show their SHA256 fingerprints and ask on the terminal before pinning one")
    .addHelpText('after', '\nExamples:\n  svc hosts add box me@box.internal --scan\n  svc hosts add gpu me@10.0.0.7:2222 --host-key "ssh-ed25519 AAAAC3Nz…"')
    .action(add)
  hosts
    .command('list')
    .description('every host, where ssh reaches it, and the fingerprint of its pinned key')
    .action(async (_options: unknown, command: Command) => {
      const all = await hostsNow()
      reply(command, { hosts: all }, () =>
        printTable(
          ['NAME', 'HOST', 'USER', 'PORT', 'KEY'],
          Object.entries(all).map(([name, host]) => [name, host.host, host.user ?? '', String(host.port ?? 22), `${host.host_key.split(' ')[0]} ${fingerprint(host.host_key)}`]),
        ),
      )
    })
  hosts
    .command('remove <name>')
    .description('remove a host (refused while a session that is not archived runs there)')
    .action(async (name: string, _options: unknown, command: Command) => {
      if (!(name in (await hostsNow()))) throw new UsageError(`no ssh host "${name}" in ssh_hosts (svc hosts list shows them)`)
      const change = await callDaemon(resolvePaths(), 'UnsetConfigValue', { key: `ssh_hosts.${name}` })
      reply(command, change, `removed ssh host ${name}`)
    })
}
