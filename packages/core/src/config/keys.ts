import { userInfo } from 'node:os'
import { sshEngine } from '../remote/docker-engine.js'
import { checkHostName, sshHosts } from './ssh-hosts.js'
import { address, bool, duration, envNames, int, list, map, string, word, type ValueType } from './types.js'
import { quote, type ConfigScope, type ConfigTierName } from '@svc/protocol'

export type Applies = 'now' | 'next-start'

export interface KeyDef<T = unknown> {
  /** How often a person needs the key: core (a new user's first settings), common, advanced. */
  readonly tier: ConfigTierName
  readonly type: ValueType<T>
  readonly default: T
  readonly purpose: string
  /** Older spellings still read from config.json, and cleared whenever the key is written. */
  readonly aliases: readonly string[]
  readonly applies: Applies
  /**
   * Where the key may be set: config.json (`global`), a repository's .svc/config.json
   * (`repo`), or either (`both`). A cloned repository must never grant itself a global
   * key (environment passthrough, network settings), so most keys are `global`.
   */
  readonly scope: ConfigScope
  /** How the default reads in docs/configuration.md when it depends on the machine (the user name). */
  readonly shownDefault?: string
}

function key<T>(
  tier: ConfigTierName,
  type: ValueType<T>,
  defaultValue: T,
  purpose: string,
  options: { aliases?: string[]; applies?: Applies; scope?: ConfigScope; shownDefault?: string } = {},
): KeyDef<T> {
  return {
    tier,
    type,
    default: defaultValue,
    purpose,
    aliases: options.aliases ?? [],
    applies: options.applies ?? 'now',
    scope: options.scope ?? 'global',
    ...(options.shownDefault === undefined ? {} : { shownDefault: options.shownDefault }),
  }
}

/** A repository setting: only in a repository's .svc/config.json, read at each session create. */
function repoKey<T>(tier: ConfigTierName, type: ValueType<T>, defaultValue: T, purpose: string): KeyDef<T> {
  return key(tier, type, defaultValue, purpose, { scope: 'repo' })
}

/** What the daemon does with a known agent's start-up gate. */
export const AGENT_GATE_POLICIES = ['accept', 'ask'] as const
export type AgentGatePolicy = (typeof AGENT_GATE_POLICIES)[number]

/** The backends a session can run on; `hook` is provisioned by the repository's remote_hooks, `docker` is a container of docker.image, `ssh` runs on a host of ssh_hosts. */
export const BACKEND_NAMES = ['local', 'hook', 'docker', 'ssh'] as const

function nonEmpty(value: string) {
  if (value.trim() === '') throw new Error('expected a non-empty string')
}

function origin(value: string) {
  let parsed: URL | undefined
  try {
    parsed = new URL(value)
  } catch {
    parsed = undefined
  }
  if (!parsed || parsed.origin !== value) {
    throw new Error(`${quote(value)} is not an exact origin such as https://app.example.com or http://localhost:3000`)
  }
}

function hostName(value: string) {
  if (!/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(value)) {
    throw new Error(`"${value}" is not a host name such as devbox.internal (no scheme, no port)`)
  }
}

/** A project by its root path or its repo id (12 hex characters). */
function projectRef(value: string) {
  if (!value.startsWith('/') && !/^[0-9a-f]{12}$/.test(value)) {
    throw new Error(`${quote(value)} is neither an absolute project path nor a repo id (12 hex characters)`)
  }
}

function pattern(value: string) {
  try {
    new RegExp(value, 'i')
  } catch (error) {
    throw new Error(`${quote(value)} is not a valid regular expression: ${(error as Error).message}`, { cause: error })
  }
}

function userName(): string {
  try {
    return userInfo().username.toLowerCase()
  } catch {
    return 'svc'
  }
}

/** Every user-facing global key. Dotted names are nested objects in config.json. */
export const CONFIG_KEYS = {
  default_program: key(
    'core',
    string(nonEmpty),
    'claude',
    'Agent for new sessions: a known agent name (claude, codex, aider, gemini, amp, opencode, devin) or any command line',
    { scope: 'both' },
  ),
  program_overrides: key(
    'core',
    map(nonEmpty),
    {},
    'Command line for a known agent name, e.g. program_overrides.claude = "claude --model opus"; approval flags go here',
    { scope: 'both' },
  ),
  backend: repoKey(
    'common',
    word(BACKEND_NAMES),
    'local',
    "Where sessions of this repository run when a create names no backend: local (tmux on the daemon host), hook (a remote agent server on a host the repository's provision_cmd makes, or that its launch_cmd starts), docker (a container of docker.image), or ssh (on the ssh_hosts host that ssh.host names)",
  ),
  ssh_hosts: key(
    'common',
    sshHosts,
    {},
    'Hosts that ssh sessions run on, by name: {"box":{"host":"box.internal","user":"me","port":22,"host_key":"ssh-ed25519 AAAA…"}}; the host key is pinned (svc hosts add NAME USER@HOST --scan shows its fingerprint and asks). svc installs itself there when the host lacks this version',
  ),
  'ssh.host': key(
    'common',
    string((value) => {
      if (value !== '') checkHostName(value)
    }),
    '',
    'The ssh_hosts name that ssh sessions run on ("" = none; CreateSession host / --host picks one per session)',
    { scope: 'both' },
  ),
  'remote_hooks.provision_cmd': repoKey(
    'advanced',
    string(),
    '',
    'Command that makes a host for a hook session and prints {host, host_key, user?, port?}; svc then reaches it over ssh with that host key pinned, clones the repository there and starts svc agent-server; instead of launch_cmd',
  ),
  'remote_hooks.launch_cmd': repoKey(
    'advanced',
    string(),
    '',
    'Command that starts svc agent-server for a hook session on its own infrastructure and prints {url, token}; instead of provision_cmd',
  ),
  'remote_hooks.delete_cmd': repoKey(
    'advanced',
    string(),
    '',
    'Command run with --name <slug> to tear down a hook session after a kill or a failed create',
  ),
  'docker.image': key(
    'common',
    string(),
    '',
    'The image docker sessions run in (it must be on the engine already and have node 20+, git and tmux; svc image build makes one); svc installs itself into each container',
    { scope: 'both' },
  ),
  'docker.run_args': key(
    'advanced',
    string(),
    '',
    'Extra docker run arguments for docker sessions\' containers (e.g. "--memory 4g --cpus 2"), split as a shell splits words; svc adds its labels, environment and the agent server\'s port (on 127.0.0.1 only)',
  ),
  'docker.host': key(
    'advanced',
    // A malformed ssh:// one is refused when set, not at its first use.
    string((value) => void sshEngine(value)),
    '',
    'The engine docker sessions run on, as DOCKER_HOST: one on this machine (e.g. unix:///run/user/1000/docker.sock; "" = docker\'s own default), or ssh://[user@]host[:port] for one on another machine, whose socket and agent server ports svc forwards over ssh (remote_ssh_command; the host key pinned in ssh_hosts, else your known_hosts), or tcp://host:port for one on another machine without ssh (TLS from DOCKER_TLS_VERIFY and DOCKER_CERT_PATH in the daemon\'s environment), whose agent servers svc reaches through docker exec; on another machine the repository\'s origin must be a URL that machine reaches',
  ),
  'docker.mount_agent_credentials': key(
    'advanced',
    bool,
    false,
    "Mount the session program's one credential file (Claude: ~/.claude/.credentials.json, Codex: ~/.codex/auth.json) read-only into its docker container",
  ),
  remote_ssh_command: key(
    'advanced',
    string(nonEmpty),
    'ssh',
    'The ssh client command line svc reaches provisioned hosts with (e.g. "ssh -i ~/.ssh/svc_ed25519"); svc adds the host key pinning and connection sharing options before your arguments',
  ),
  remote_svc_command: key(
    'advanced',
    string(nonEmpty),
    'svc',
    'The command that runs svc on a provisioned host (e.g. "~/.local/bin/svc"), as that host\'s shell reads it; on ssh_hosts hosts, left at svc, svc installs itself there instead',
  ),
  remote_insecure_http_hosts: key(
    'advanced',
    list(hostName),
    [] as string[],
    "Hosts a launch_cmd's agent server may answer on over plain http though they are not loopback (the token then crosses the network in clear); any other plain-http endpoint is refused",
  ),
  session_env_passthrough: key(
    'common',
    envNames,
    [] as string[],
    'Extra environment variable names (exact) passed to agent panes, tabs, watch commands and the git commands the daemon runs for sessions',
  ),
  'network.listen_addr': key(
    'core',
    address,
    '127.0.0.1:8443',
    'TCP listener for remote clients as host:port (":0" picks a free port, "" turns it off); rebinds in place',
  ),
  'network.require_token': key(
    'advanced',
    bool,
    true,
    'Require the bearer token (daemon-token) on the TCP listener; false lets any local process or reachable host drive the daemon',
    { aliases: ['require_token'] },
  ),
  'network.require_loopback_token': key(
    'advanced',
    bool,
    true,
    'Also require the token from loopback peers on a loopback bind; false lets every local user drive the daemon over TCP',
    { aliases: ['require_loopback_token'] },
  ),
  'network.cors_allowed_origins': key(
    'advanced',
    list(origin),
    [] as string[],
    "Browser origins, besides the listener's own, allowed to call the API (matched exactly)",
    { aliases: ['cors_allowed_origins'] },
  ),
  'network.allowed_hosts': key(
    'advanced',
    list(hostName),
    [] as string[],
    'Host names, besides loopback ones, that a loopback-bound TCP listener answers (a guard against DNS rebinding)',
  ),
  'network.preview_listen_addr': key(
    'common',
    address,
    '',
    'Address of the preview listener, which serves each web tab from its own origin (http://svc<label>.localhost:<port>) for same-machine browsers; "" turns it off. Rebinds in place',
    { aliases: ['preview_listen_addr'] },
  ),
  daemon_poll_interval: key(
    'advanced',
    duration(100),
    1000,
    'How often panes are compared to tell running from ready and to notice lost sessions and usage limits',
  ),
  branch_prefix: key('common', string(), `${userName()}/`, 'Prefix of the branches the daemon creates for sessions', {
    applies: 'next-start',
    shownDefault: '<user>/',
  }),
  agent_gates: key(
    'common',
    word(AGENT_GATE_POLICIES),
    'accept',
    "What the daemon does when a known agent asks a start-up question (folder trust, a new MCP server): accept answers it, ask leaves it to you (the row says agent-asks); a repository may set ask, never loosen the global ask",
    { scope: 'both' },
  ),
  limit_patterns: key(
    'advanced',
    map(pattern),
    {},
    'Usage-limit banner per agent (case-insensitive regular expression), replacing the built-in one',
  ),
  limit_auto_resume: key('common', bool, false, 'Resume sessions parked at a usage limit automatically'),
  limit_retry_interval: key(
    'advanced',
    duration(1000),
    30 * 60_000,
    'How often automatic resume retries when the banner names no reset time',
  ),
  lost_restore_backoff: key(
    'advanced',
    duration(100),
    10_000,
    'Wait before automatically restoring a lost session; doubles per attempt (6 attempts) up to 5 minutes',
  ),
  root_agents: key(
    'common',
    list(projectRef),
    [] as string[],
    'Projects (root paths or repo ids) that get an in-place session titled "root" at daemon start, a title no other session may take; removing the project drops it from this list',
    { applies: 'next-start' },
  ),
  root_agent: key(
    'common',
    string(),
    '',
    'Agent of root sessions ("" = default_program); at start, a root session running another agent gets a recreate notice (idle_reason recreate-pending) until RestoreSession with force_reap recreates it under this agent',
    { applies: 'next-start' },
  ),
  notify_command: key(
    'common',
    string(),
    '',
    'Shell command run ($SHELL -c) with the event JSON on stdin whenever a session needs its user (settled, usage limit, prompt not delivered); at most once per session per 30 s; "" = off',
  ),
  log_max_size_mb: key('advanced', int(1, 1024), 10, 'Rotate daemon.log when it reaches this many megabytes'),
  log_max_backups: key('advanced', int(1, 100), 3, 'Rotated daemon.log files to keep'),
  'debug.profiling': key(
    'advanced',
    bool,
    false,
    'Serve CPU and heap profiles at GET /v1/debug/pprof/{cpu,heap,heap-sampling}, on the Unix socket only (never on the TCP listener)',
  ),
} as const

export type ConfigKey = keyof typeof CONFIG_KEYS
export type Settings = { -readonly [K in ConfigKey]: (typeof CONFIG_KEYS)[K]['default'] }

export const CONFIG_KEY_NAMES = Object.keys(CONFIG_KEYS) as ConfigKey[]

export function defaultSettings(): Settings {
  return Object.fromEntries(CONFIG_KEY_NAMES.map((name) => [name, structuredClone(CONFIG_KEYS[name].default)])) as Settings
}
