import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AGENTS, agentOf, takesAccounts } from '../agents/agent.js'
import { commandWords } from '../infra/command-words.js'
import { CONTAINER_SVC_DIR } from './svc-install.js'

/** The agent server's port inside every container; published on the engine's 127.0.0.1. */
export const AGENT_PORT = 7777

/** The file the container's keeper runs the agent server from (see keeperCommand). */
export const SERVE_FILE = `${CONTAINER_SVC_DIR}.serve`

/** The name of a session's container, known before it is made (and journaled then). */
export function containerName(id: string): string {
  return `svc-${id}`
}

/**
 * The path of an origin on this machine (a path, or a file: URL), made absolute against
 * the repository root; undefined for one reached over the network. A local origin is
 * mounted into the container at the same path, so the clone and the archive's push reach it.
 */
export function localOrigin(origin: string, root: string): string | undefined {
  if (origin.startsWith('file://')) return fileURLToPath(origin)
  // URLs (https://, ssh://) and scp-like user@host:path are reached over the network.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(origin) || /^[^/]+:/.test(origin)) return undefined
  return isAbsolute(origin) ? origin : resolve(root, origin)
}

/** Pane names that describe this machine: its paths, user, display, agent sockets, the agents' credential homes, the local session. */
const MACHINE_NAMES = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR', 'DISPLAY', 'WAYLAND_DISPLAY', 'SSH_AUTH_SOCK', 'SSH_AGENT_PID', 'SVC_SESSION_ID', 'SVC_SESSION_TITLE',
  ...Object.values(AGENTS).flatMap((agent) => (agent.accountHome ? [agent.accountHome] : [])),
])

/**
 * The pane environment names that cross into a container: the agent's own, the cloud
 * group it selects, session_env_passthrough's, and the allowlist's, but none that
 * describes this machine (MACHINE_NAMES, XDG_*).
 */
export function crossingNames(paneEnv: Record<string, string>): string[] {
  return Object.keys(paneEnv).filter((name) => !MACHINE_NAMES.has(name) && !name.startsWith('XDG_')).sort()
}

/**
 * The one credential file of the agent `program` runs (Claude's .credentials.json, Codex's
 * auth.json), as this machine has it, and where it goes under the container's home; none
 * for an agent that keeps no such file, or when the file is not there.
 */
export function credentialFile(program: string, env: NodeJS.ProcessEnv, containerHome: string): { source: string; target: string } | undefined {
  const agent = agentOf(program)
  if (!takesAccounts(agent)) return undefined
  const dir = env[agent.accountHome] || join(env.HOME || homedir(), agent.defaultHome)
  const source = join(dir, agent.credentialFile)
  return existsSync(source) ? { source, target: `${containerHome.replace(/\/$/, '')}/${agent.defaultHome}/${agent.credentialFile}` } : undefined
}

export interface ContainerSpec {
  name: string
  image: string
  labels: Record<string, string>
  /** The agent server's port on 127.0.0.1. */
  port: number
  /** Names whose values the docker command's environment carries. */
  env: string[]
  /** Bind mounts, `source:target[:ro]`. */
  mounts: string[]
  /** `docker.run_args`. */
  runArgs: string
  /** The container's main process. */
  command: string
}

/**
 * `docker run`'s arguments: detached, restarted with the engine, tini as pid 1 (the
 * agent server's children are reaped), the port on loopback only, the environment by
 * name only (values never on argv).
 */
export function runArgs(spec: ContainerSpec): string[] {
  return [
    // Never pulled: a session runs only an image the engine has.
    'run', '-d', '--pull', 'never', '--init', '--restart', 'unless-stopped', '--name', spec.name,
    ...Object.entries(spec.labels).flatMap(([name, value]) => ['--label', `${name}=${value}`]),
    '-p', `127.0.0.1:${spec.port}:${AGENT_PORT}`,
    ...spec.env.flatMap((name) => ['-e', name]),
    ...spec.mounts.flatMap((mount) => ['-v', mount]),
    ...commandWords(spec.runArgs),
    spec.image, 'sh', '-c', spec.command,
  ]
}
