import { homedir } from 'node:os'
import { join } from 'node:path'

/** Node silently truncates longer Unix socket paths, so we refuse them up front. */
export const MAX_SOCKET_PATH_BYTES = 107

export class ServiceHomeError extends Error {}

/** Expands a leading `~` or `~/`; `~user` is refused with `describe` naming where it came from. */
export function expandHome(path: string, home: string = homedir(), describe = path): string {
  if (path === '~') return home
  if (path.startsWith('~/')) return join(home, path.slice(2))
  if (path.startsWith('~')) {
    throw new ServiceHomeError(`${describe}: "~user" is not supported; write the full path or start with "~/"`)
  }
  return path
}

/** Resolves `SERVICE_HOME` the same way for the daemon and every client. */
export function resolveServiceHome(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const raw = env.SERVICE_HOME ?? ''
  return raw === '' ? join(home, '.svc') : expandHome(raw, home, `SERVICE_HOME=${raw}`)
}

export interface ServicePaths {
  home: string
  socket: string
  lock: string
  pid: string
  log: string
  token: string
  config: string
  sessions: string
  /** One record per session, `<id>.json`. */
  sessionRecords: string
  /** Creations under way, one intent per session, for recovery after a crash. */
  creating: string
  /** Agent handoffs under way, one intent per session. */
  handoffs: string
  tasks: string
  projects: string
  /** The sha256 of each repository config the user trusted, and of the scripts its hooks run, by repository root. */
  trustedRepoConfigs: string
  accounts: string
  archived: string
  /** Hook sessions' bearer tokens, one 0600 file per session id. */
  remoteTokens: string
  /** Provisioned hook sessions' ssh state, one 0700 directory per session id (its pinned known_hosts). */
  remoteSsh: string
  /** ssh sessions' shared masters, one 0700 directory per ssh_hosts name (its pinned known_hosts). */
  sshHosts: string
  /** Docker sessions' engines on other machines (docker.host ssh://): one shared master's 0700 directory per engine. */
  dockerSsh: string
  tmuxSocket: string
}

export function servicePaths(home: string): ServicePaths {
  const at = (name: string) => join(home, name)
  return {
    home,
    socket: at('daemon-http.sock'),
    lock: at('daemon.lock'),
    pid: at('daemon.pid'),
    log: at('daemon.log'),
    token: at('daemon-token'),
    config: at('config.json'),
    sessions: at('sessions.json'),
    sessionRecords: at('sessions'),
    creating: at('creating'),
    handoffs: at('handoffs'),
    tasks: at('tasks.json'),
    projects: at('projects.json'),
    trustedRepoConfigs: at('trusted-repo-configs.json'),
    accounts: at('accounts'),
    archived: at('archived'),
    remoteTokens: at('remote-tokens'),
    remoteSsh: at('remote-ssh'),
    sshHosts: at('ssh-hosts'),
    dockerSsh: at('docker-ssh'),
    tmuxSocket: at('tmux.sock'),
  }
}

/** Throws when a socket path would be truncated by the kernel. */
export function checkSocketPath(path: string): void {
  const length = Buffer.byteLength(path)
  if (length > MAX_SOCKET_PATH_BYTES) {
    throw new ServiceHomeError(
      `socket path ${path} is ${length} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit for Unix sockets; ` +
        'set SERVICE_HOME to a shorter directory (for example ~/.svc)',
    )
  }
}
