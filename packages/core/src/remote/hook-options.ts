import type { Logger } from 'pino'
import type { Config } from '../config/config.js'
import type { ConfigResolver } from '../config/resolver.js'
import type { CreationJournal } from '../sessions/reconcile.js'
import type { SessionRecord } from '../sessions/record.js'
import type { SessionTable } from '../sessions/table.js'
import type { DockerEngine } from './docker-engine.js'
import type { SshTimings } from './ssh-links.js'
import type { RemoteTokens } from './tokens.js'

/** What hook sessions take from the home: its session table and settings, and how their hooks and ssh run. */
export interface HookOptions {
  table: SessionTable
  resolver: ConfigResolver
  /** remote_ssh_command and remote_svc_command, read at each use. */
  config: Pick<Config, 'get'>
  /** `$SERVICE_HOME/remote-ssh`: provisioned sessions' known_hosts and control sockets. */
  sshDir: string
  /** `$SERVICE_HOME/ssh-hosts`: the shared masters of ssh sessions' hosts, one directory per ssh_hosts name. */
  sshHostsDir: string
  /** `$SERVICE_HOME/docker-ssh`: the shared masters of docker.host engines on other machines. */
  dockerSshDir: string
  sshTimings: SshTimings
  tokens: RemoteTokens
  log: Logger
  /** The environment hooks run with: the daemon's, filtered as a pane's is. */
  hookEnv(): NodeJS.ProcessEnv
  /** A session's pane environment as a local session of its program gets it (what may cross into its container). */
  paneEnv(record: SessionRecord): Record<string, string>
  /** The daemon's SERVICE_HOME and own environment (the portable svc it installs, credential files). */
  home: string
  env: NodeJS.ProcessEnv
  /** The Docker Engine docker sessions run on. */
  docker: DockerEngine
  /** How long launch_cmd, provision_cmd, delete_cmd and one ssh run may take. */
  timeoutMs: number
  /** CreateSession's intents: a create the daemon died in runs delete_cmd at the next start. */
  creations: Pick<CreationJournal, 'begin' | 'end' | 'undo'>
  bootId: string
  /** Ids of enabled tasks that target the session (an archive is refused while any does). */
  targetedBy(record: SessionRecord): string[]
}
