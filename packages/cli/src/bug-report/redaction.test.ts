import { expect, it } from 'vitest'
import { redactFields, redactText } from './redaction.js'

it('shows the home as ~ only where it is the home, not a sibling whose name starts with it', () => {
  const secrets = { literals: [], home: '/home/al' }
  expect(redactText('/home/al/src/repo and /home/al, not /home/alice/x or /home/al.bak', secrets)).toBe('~/src/repo and ~, not /home/alice/x or /home/al.bak')
})

it('blanks literal secrets, URL credentials and token parameters in free text, but not secrets too short to search for', () => {
  const secrets = { literals: ['fix-parser', 'ab'], home: '/home/al' }
  const text = 'session fix-parser: push to https://me:pw@host/r.git failed; GET /?token=abc123&x=1 from ab'
  expect(redactText(text, secrets)).toBe('session [redacted]: push to https://host/r.git failed; GET /?token=[redacted]&x=1 from ab')
})

it('blanks secret fields at any depth, and a program only when it is no known agent', () => {
  const record = { title: 't', program: 'claude', tabs: [{ name: 'tests', command: 'pnpm test', kind: 2 }], remote: { endpoint: 'http://x' } }
  expect(redactFields(record)).toEqual({ title: '[redacted]', program: 'claude', tabs: [{ name: '[redacted]', command: '[redacted]', kind: 2 }], remote: { endpoint: '[redacted]' } })
  expect(redactFields({ program: 'node ~/agent.mjs --yes' })).toEqual({ program: '[redacted]' })
})
