import { execFileSync, spawn } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ipText, type Netns } from './netns.js'
import { alive, waitFor } from './wait.js'

/**
 * A Docker Engine of the test's own (its data, sockets and bridge in a temp dir), which
 * the test may stop and start under a live session without touching the machine's
 * engine, or another test's containers. Needs root, as dockerd does.
 */
export interface PrivateEngine {
  /** Its DOCKER_HOST, `unix://…/docker.sock`. */
  host: string
  /** `tcp`: where it listens on its namespace's address too, `tcp://<address>:<port>` (plain, unauthenticated: a private veth only). */
  tcp?: string
  /** dockerd stopped (SIGTERM, as a service manager stops it), once it has exited. */
  stop(): Promise<void>
  start(): Promise<void>
  /** Stopped and everything of it removed: the bridge, the data root's mount, the directory. */
  close(): Promise<void>
}

function dockerdArgs(dir: string, bridge: string, tcp: string | undefined): string[] {
  return ['--data-root', join(dir, 'data'), '--exec-root', join(dir, 'exec'), '--pidfile', join(dir, 'docker.pid'), '-H', `unix://${join(dir, 'docker.sock')}`, ...(tcp ? ['-H', tcp] : []), '--bridge', bridge, '--iptables=false', '--ip-masq=false']
}

/** Docker's own unencrypted port. */
const TCP_PORT = 2375

/** Whether the engine at `host` answers. */
function answers(host: string): boolean {
  try {
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], { env: { ...process.env, DOCKER_HOST: host }, stdio: 'ignore', timeout: 10_000 })
    return true
  } catch {
    return false
  }
}

/**
 * `netns`: dockerd and its bridge in that network namespace (an engine "on another
 * machine": its published ports on the namespace's loopback), its socket still a file here;
 * `tcp`: listening on the namespace's address too (`tcp`).
 */
export async function startPrivateEngine({ netns, tcp = false }: { netns?: Netns; tcp?: boolean } = {}): Promise<PrivateEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-dockerd-'))
  const tag = Math.floor(Math.random() * 0xffff).toString(16)
  const bridge = `svcbr${tag}`
  // A /24 of 10.213.0.0/16 of its own: the machine's engine keeps 172.17.0.0/16.
  const subnet = `10.213.${Math.floor(Math.random() * 250) + 2}`
  const inside = netns ? ['-n', netns.name] : []
  ipText(...inside, 'link', 'add', bridge, 'type', 'bridge')
  ipText(...inside, 'addr', 'add', `${subnet}.1/24`, 'dev', bridge)
  ipText(...inside, 'link', 'set', bridge, 'up')
  // nsenter enters only the network namespace (ip netns exec would hide the cgroup mounts dockerd needs).
  const [command, prefix] = netns ? ['nsenter', [`--net=/run/netns/${netns.name}`, 'dockerd']] : ['dockerd', []]
  const host = `unix://${join(dir, 'docker.sock')}`
  const pidFile = join(dir, 'docker.pid')
  const pid = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : 0)
  const tcpHost = netns && tcp ? `tcp://${netns.address}:${TCP_PORT}` : undefined
  const engine: PrivateEngine = {
    host,
    ...(tcpHost ? { tcp: tcpHost } : {}),
    async start() {
      const log = openSync(join(dir, 'dockerd.log'), 'a')
      spawn(command, [...prefix, ...dockerdArgs(dir, bridge, tcpHost)], { detached: true, stdio: ['ignore', log, log] }).unref()
      closeSync(log)
      await waitFor(() => answers(host) || undefined, 60_000)
    },
    async stop() {
      const running = pid()
      if (!running || !alive(running)) return
      process.kill(running, 'SIGTERM')
      // Its containers get their 10 s to stop first.
      await waitFor(() => !alive(running) || undefined, 60_000)
    },
    async close() {
      await engine.stop()
      try {
        ipText(...inside, 'link', 'del', bridge)
      } catch {
        // Gone with its namespace.
      }
      // dockerd mounts its data root over itself.
      try {
        execFileSync('umount', ['-l', join(dir, 'data')], { stdio: 'ignore' })
      } catch {
        // Not mounted.
      }
      await rm(dir, { recursive: true, force: true })
    },
  }
  await engine.start()
  return engine
}
