import { pino } from 'pino'
import { expect, it } from 'vitest'
import { logRedaction, redactUrl } from './redact.js'

it('blanks token parameters in URLs, keeping the rest', () => {
  expect(redactUrl('/?token=abc&tab=2')).toBe('/?token=[redacted]&tab=2')
  expect(redactUrl('/v1/x?a=1&access_token=abc#f')).toBe('/v1/x?a=1&access_token=[redacted]#f')
  expect(redactUrl('/v1/x?mytoken=abc')).toBe('/v1/x?mytoken=abc')
})

it('keeps credentials out of log lines, at the top level and nested', () => {
  const lines: string[] = []
  const log = pino(logRedaction, { write: (line: string) => void lines.push(line) })
  log.info({
    token: 'secret-1',
    req: { url: '/?access_token=secret-2', headers: { authorization: 'Bearer secret-3', cookie: 'svc_login_1=secret-4', host: 'h' } },
    url: '/v1/health?token=secret-5',
  })
  const line = lines.join('')
  for (const secret of ['secret-1', 'secret-2', 'secret-3', 'secret-4', 'secret-5']) expect(line).not.toContain(secret)
  expect(line).toContain('"host":"h"')
})
