import { readFile } from 'node:fs/promises'
import { expect, it } from 'vitest'
import { CONFIG_KEY_NAMES } from '@svc/core'
import { runCli } from '@svc/test-kit'

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

it('has a CLI reference row for every session, tab, project, task, account and daemon command', async () => {
  const text = await readme()
  const documented = (command: string) => text.includes(`| \`svc ${command}`)
  const missing: string[] = []
  for (const group of ['sessions', 'tabs', 'projects', 'tasks', 'accounts', 'daemon']) {
    const help = (await runCli([group, '--help'], {})).stdout
    const names = [...help.split('Commands:')[1]!.matchAll(/^ {2}([a-z-]+)/gm)].map((match) => match[1]).filter((name) => name !== 'help')
    expect(names.length, group).toBeGreaterThan(2)
    missing.push(...names.map((name) => `${group} ${name}`).filter((command) => !documented(command)))
  }
  missing.push(...['programs', 'backends', 'agent-server'].filter((command) => !documented(command)))
  expect(missing).toEqual([])
})
