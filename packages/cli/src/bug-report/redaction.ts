import { AGENT_NAMES, escapeRegExp, redact, REDACTED, withoutCredentials } from '@svc/core'
import { redactUrl } from '@svc/daemon'

/**
 * Fields whose values say what a user works on or how to reach them: titles and what
 * derives from them (tmux names, branches, slugs), prompts, commands, URLs, tokens.
 */
const SECRET_KEYS = new Set([
  'title', 'name', 'tmux_name', 'branch', 'slug', 'notice', 'target_session',
  'prompt', 'first_prompt', 'pending_prompts', 'text', 'last_prompt_failure',
  'command', 'watch_cmd', 'launch_cmd', 'provision_cmd', 'delete_cmd', 'remote_ssh_command', 'remote_svc_command', 'program_overrides',
  'url', 'endpoint', 'origin',
  'token', 'access_token', 'authorization', 'cookie',
])

/** A copy of a stored record or log entry with every secret field's value replaced; known agent names stay. */
export function redactFields(value: unknown, key = ''): unknown {
  if (value === null || value === undefined) return value
  if (key === 'program' && typeof value === 'string') return AGENT_NAMES.includes(value) ? value : REDACTED
  if (SECRET_KEYS.has(key)) return REDACTED
  if (Array.isArray(value)) return value.map((item) => redactFields(item))
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, field]) => [name, redactFields(field, name)]))
  return value
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi
/** A word carrying a token parameter: a URL, or a request path as an access log has it. */
const TOKEN_PARAMETER = /[^\s"'<>`]*[?&](?:access_token|token)=[^\s"'<>`]*/gi
const BEARER = /\b(Bearer\s+)[\w.~+/=-]+/gi

/** Literal secrets shorter than this are not searched for in free text: a two-letter title would blank half the report. */
const SHORTEST_SECRET = 4

export interface Secrets {
  /** Tokens, titles, prompts: blanked wherever they appear. */
  literals: string[]
  /** The user's home directory, shown as `~`. */
  home: string
}

/** Free text (a log, a doctor line) with the secrets blanked, URLs without credentials or token parameters, the home as `~`. */
export function redactText(text: string, { literals, home }: Secrets): string {
  const secrets = literals.filter((secret) => secret.length >= SHORTEST_SECRET).sort((a, b) => b.length - a.length)
  const blanked = redact(text, ...secrets)
    .replace(URL_IN_TEXT, (url) => withoutCredentials(url))
    .replace(TOKEN_PARAMETER, (word) => redactUrl(word))
    .replace(BEARER, `$1${REDACTED}`)
  if (home.length <= 1) return blanked
  // The home itself, not a sibling that starts with its name (/home/al is not /home/alice's).
  return blanked.replace(new RegExp(`${escapeRegExp(home)}(?![\\w.-])`, 'g'), '~')
}
