import { afterEach, expect, it, vi } from 'vitest'
import { hostPath } from './args.js'

afterEach(() => vi.unstubAllEnvs())

it('resolves relative paths against the caller\'s directory', () => {
  vi.stubEnv('npm_lifecycle_event', 'test')
  vi.stubEnv('INIT_CWD', '/somewhere/else')
  expect(hostPath('repo')).toBe(`${process.cwd()}/repo`)
  expect(hostPath('~/repo')).toBe('~/repo')
  expect(hostPath('/abs')).toBe('/abs')
})

it('takes the caller\'s directory from pnpm when run as `pnpm svc`', () => {
  vi.stubEnv('npm_lifecycle_event', 'svc')
  vi.stubEnv('INIT_CWD', '/home/ada/src/parser')
  expect(hostPath('.')).toBe('/home/ada/src/parser')
  expect(hostPath('../other')).toBe('/home/ada/src/other')
})
