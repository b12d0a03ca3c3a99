import { createClient, UnreachableError, type Client } from '@svc/protocol'

/** Where a hook session's agent server answers, and the bearer token it wants. */
export interface Endpoint {
  url: string
  token: string
}

/** How long one request to a remote may take before it counts as not answering. */
const REMOTE_TIMEOUT_MS = 30_000

/** `"token": "…"` values anywhere in a text, so a message quoting a hook's output never carries one. */
const TOKEN_FIELD = /"token"\s*:\s*"((?:[^"\\]|\\.)*)"/g

/** What stands for a secret wherever one is left out: here, and in daemon.log. */
export const REDACTED = '[redacted]'

/** `text` with every given secret, and any JSON `token` field's value, replaced by `REDACTED`. */
export function redact(text: string, ...secrets: Array<string | undefined>): string {
  const found = [...text.matchAll(TOKEN_FIELD)].map((match) => match[1] as string)
  return [...secrets, ...found]
    .filter((secret): secret is string => secret !== undefined && secret !== '')
    .reduce((out, secret) => out.replaceAll(secret, REDACTED), text)
}

/**
 * The one JSON object a hook printed: its stdout holds only that (whitespace around it
 * allowed). `shape` names its fields for messages. Throws a message fit to show, any
 * token redacted.
 */
export function hookAnswer(stdout: string, shape: string): { value: Record<string, unknown>; shown: () => string } {
  const text = stdout.trim()
  const shown = () => (text === '' ? 'nothing' : JSON.stringify(redact(text).slice(0, 300)))
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new Error(`its stdout must be only one JSON object ${shape} (progress goes to stderr), but it printed ${shown()}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`its stdout must be one JSON object ${shape}, not ${shown()}`)
  }
  return { value: value as Record<string, unknown>, shown }
}

/**
 * The endpoint launch_cmd printed: stdout holds only one JSON object `{url, token}`
 * (whitespace around it allowed). Throws a message fit to show, the token redacted.
 */
export function parseEndpoint(stdout: string): Endpoint {
  const { value, shown } = hookAnswer(stdout, '{url, token}')
  const { url, token } = value
  const missing = [typeof url === 'string' && url !== '' ? '' : 'url', typeof token === 'string' && token !== '' ? '' : 'token'].filter(Boolean)
  if (missing.length > 0) throw new Error(`its endpoint JSON lacks ${missing.join(' and ')} (a non-empty string each): ${shown()}`)
  let parsed: URL
  try {
    parsed = new URL(url as string)
  } catch {
    throw new Error(`its url ${JSON.stringify(url)} is not a URL`)
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) {
    throw new Error(`its url ${JSON.stringify(url)} must be http(s) or ws(s)`)
  }
  // The API is plain HTTP on the same port a WebSocket URL names.
  parsed.protocol = parsed.protocol === 'wss:' || parsed.protocol === 'https:' ? 'https:' : 'http:'
  return { url: parsed.href.replace(/\/$/, ''), token: token as string }
}

/** The host part of an endpoint, as rows show it (`remote_host`). */
export function hostOf(url: string): string {
  return new URL(url).hostname
}

export function remoteClient(endpoint: Endpoint, timeoutMs = REMOTE_TIMEOUT_MS): Client {
  return createClient({ url: endpoint.url, token: endpoint.token }, { timeoutMs })
}

/** Nothing answered at the endpoint (refused, reset, timed out): the remote is unreachable, not dead. */
export function isUnreachable(error: unknown): boolean {
  return error instanceof UnreachableError
}
