import { expect, it } from 'vitest'
import { withoutCredentials } from './origin-url.js'

it('strips the credentials an origin URL carries, and leaves every other address as it is', () => {
  expect(withoutCredentials('https://me:ghp_secret@github.com/acme/parser.git')).toBe('https://github.com/acme/parser.git')
  expect(withoutCredentials('https://x-access-token@git.example.com/r.git')).toBe('https://git.example.com/r.git')
  expect(withoutCredentials('ssh://git:hunter2@host/r.git')).toBe('ssh://git@host/r.git')
  for (const plain of ['https://github.com/acme/parser.git', 'git@github.com:acme/parser.git', '/srv/git/parser.git', 'ssh://git@host/r.git']) {
    expect(withoutCredentials(plain)).toBe(plain)
  }
})
