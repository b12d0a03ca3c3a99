import { readFile } from 'node:fs/promises'
import { expect, it } from 'vitest'
import { CONFIG_KEY_NAMES } from '@svc/core'

const readme = () => readFile(new URL('../../../README.md', import.meta.url), 'utf8')

it('documents every config key', async () => {
  const text = await readme()
  for (const key of CONFIG_KEY_NAMES) expect(text, key).toContain(`| \`${key}\` |`)
})

it('starts with the install-and-start and install-and-test commands', async () => {
  const lines = (await readme()).split('\n')
  const start = lines.indexOf('# install and start the daemon (foreground; Ctrl-C stops it)')
  const test = lines.indexOf('# install and run the tests')
  expect(start).toBeGreaterThan(0)
  expect(lines[start + 1]).toMatch(/pnpm --filter daemon start$/)
  expect(lines[test + 1]).toMatch(/&& pnpm test$/)
})
