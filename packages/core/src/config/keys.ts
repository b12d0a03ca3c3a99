import { userInfo } from 'node:os'
import { address, bool, duration, envNames, int, list, map, string, type ValueType } from './types.js'

export type Applies = 'now' | 'next-start'

export interface KeyDef<T = unknown> {
  readonly type: ValueType<T>
  readonly default: T
  readonly purpose: string
  /** Older spellings still read from config.json, and cleared whenever the key is written. */
  readonly aliases: readonly string[]
  readonly applies: Applies
}

function key<T>(
  type: ValueType<T>,
  defaultValue: T,
  purpose: string,
  options: { aliases?: string[]; applies?: Applies } = {},
): KeyDef<T> {
  return { type, default: defaultValue, purpose, aliases: options.aliases ?? [], applies: options.applies ?? 'now' }
}

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
    throw new Error(`"${value}" is not an exact origin such as https://app.example.com or http://localhost:3000`)
  }
}

function absolutePath(value: string) {
  if (!value.startsWith('/')) throw new Error(`"${value}" is not an absolute path`)
}

function pattern(value: string) {
  try {
    new RegExp(value, 'i')
  } catch (error) {
    throw new Error(`"${value}" is not a valid regular expression: ${(error as Error).message}`, { cause: error })
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
    string(nonEmpty),
    'claude',
    'Agent for new sessions: a known agent name (claude, codex, aider, gemini, amp, opencode, devin) or any command line',
  ),
  program_overrides: key(
    map(nonEmpty),
    {},
    'Command line for a known agent name, e.g. program_overrides.claude = "claude --model opus"; approval flags go here',
  ),
  session_env_passthrough: key(
    envNames,
    [] as string[],
    'Extra environment variable names (exact) passed to agent panes, shell and process tabs, and post-worktree commands',
  ),
  'network.listen_addr': key(
    address,
    '127.0.0.1:8443',
    'TCP listener for remote clients as host:port (":0" picks a free port, "" turns it off); rebinds in place',
  ),
  'network.require_token': key(bool, false, 'Require the bearer token (daemon-token) on the TCP listener', {
    aliases: ['require_token'],
  }),
  'network.require_loopback_token': key(
    bool,
    false,
    'With require_token on a loopback bind, also require the token from loopback peers',
    { aliases: ['require_loopback_token'] },
  ),
  'network.cors_allowed_origins': key(
    list(origin),
    [] as string[],
    'Browser origins allowed to call the TCP listener, matched exactly',
    { aliases: ['cors_allowed_origins'] },
  ),
  'network.preview_listen_addr': key(
    address,
    '',
    'Listener that serves web tabs from their own origins, same machine only ("" = off); rebinds in place',
    { aliases: ['preview_listen_addr'] },
  ),
  daemon_poll_interval: key(
    duration(100),
    1000,
    'How often panes are compared to tell running from ready and to notice lost sessions and usage limits',
  ),
  branch_prefix: key(string(), `${userName()}/`, 'Prefix of the branches the daemon creates for sessions', {
    applies: 'next-start',
  }),
  limit_patterns: key(
    map(pattern),
    {},
    'Usage-limit banner per agent (case-insensitive regular expression), replacing the built-in one',
  ),
  limit_auto_resume: key(bool, false, 'Resume sessions parked at a usage limit automatically'),
  limit_retry_interval: key(
    duration(1000),
    30 * 60_000,
    'How often automatic resume retries when the banner names no reset time',
  ),
  lost_restore_backoff: key(
    duration(100),
    10_000,
    'Wait before automatically restoring a lost session; doubles per attempt (6 attempts) up to 5 minutes',
  ),
  root_agents: key(list(absolutePath), [] as string[], 'Project roots that get a root agent session at daemon start', {
    applies: 'next-start',
  }),
  root_agent: key(string(), '', 'Agent for root sessions ("" = default_program)', { applies: 'next-start' }),
  log_max_size_mb: key(int(1, 1024), 10, 'Rotate daemon.log when it reaches this many megabytes'),
  log_max_backups: key(int(1, 100), 3, 'Rotated daemon.log files to keep'),
} as const

export type ConfigKey = keyof typeof CONFIG_KEYS
export type Settings = { -readonly [K in ConfigKey]: (typeof CONFIG_KEYS)[K]['default'] }

export const CONFIG_KEY_NAMES = Object.keys(CONFIG_KEYS) as ConfigKey[]

export function defaultSettings(): Settings {
  return Object.fromEntries(CONFIG_KEY_NAMES.map((name) => [name, structuredClone(CONFIG_KEYS[name].default)])) as Settings
}
