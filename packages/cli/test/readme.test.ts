import { access, readFile } from 'node:fs/promises'
import { expect, it } from 'vitest'

const root = new URL('../../../', import.meta.url)
const readme = () => readFile(new URL('README.md', root), 'utf8')

it('starts with the install-and-start and install-and-test commands', async () => {
  const lines = (await readme()).split('\n')
  const start = lines.indexOf('# install and start the daemon (foreground; Ctrl-C stops it)')
  const test = lines.indexOf('# install and run the tests')
  expect(start).toBeGreaterThan(0)
  expect(lines[start + 1]).toMatch(/pnpm --filter daemon start$/)
  expect(lines[test + 1]).toMatch(/&& pnpm test:deps && pnpm test$/)
  // They are the README's first code block, right under the opening paragraph.
  expect(lines.findIndex((line) => line.startsWith('```'))).toBe(start - 1)
  expect(start).toBeLessThan(15)
})

it('is a guide of at most 400 lines whose links into docs/ all resolve', async () => {
  const text = await readme()
  expect(text.split('\n').length).toBeLessThanOrEqual(400)
  const links = [...text.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1]!)
  expect(links.length).toBeGreaterThan(5)
  for (const link of new Set(links)) await expect(access(new URL(link, root)), link).resolves.toBeUndefined()
})
