import type { LoggerOptions } from 'pino'
import { REDACTED } from '@svc/core'

const CREDENTIAL_PARAMS = /([?&](?:access_token|token)=)[^&#]*/gi

/** A request URL with its credential query parameters blanked, fit for the log. */
export function redactUrl(url: string): string {
  return url.replace(CREDENTIAL_PARAMS, `$1${REDACTED}`)
}

const CREDENTIAL_KEYS = ['authorization', 'cookie', 'set-cookie', 'token', 'access_token']

/**
 * Tokens never reach daemon.log: credential keys are censored at the top level, one and
 * two levels down (`req.headers.authorization`), and URLs lose their token parameters.
 */
export const logRedaction: Pick<LoggerOptions, 'redact' | 'serializers'> = {
  redact: {
    paths: CREDENTIAL_KEYS.flatMap((key) => [`["${key}"]`, `*["${key}"]`, `*.*["${key}"]`]),
    censor: REDACTED,
  },
  serializers: {
    url: (url: unknown) => (typeof url === 'string' ? redactUrl(url) : url),
    req: (req: { url?: unknown }) => (typeof req?.url === 'string' ? { ...req, url: redactUrl(req.url) } : req),
  },
}
