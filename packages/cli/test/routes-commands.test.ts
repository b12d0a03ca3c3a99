import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { catalog } from '@svc/protocol'

const COMMANDS = fileURLToPath(new URL('../src/commands/', import.meta.url))

/**
 * The command sources as values only: comments, type aliases and type arguments
 * such as RequestOf<'CreateTab'> name a route without calling it.
 */
async function commandCode(): Promise<string> {
  const files = (await readdir(COMMANDS)).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
  const sources = await Promise.all(files.map((file) => readFile(`${COMMANDS}${file}`, 'utf8')))
  return sources
    .join('\n')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/^\s*(export\s+)?type\s.*$/gm, '')
    .replace(/<'[A-Za-z]+'>/g, '')
}

it('has a CLI command calling every public route', async () => {
  const code = await commandCode()
  const names = catalog().map((route) => route.name)
  expect(names.length).toBeGreaterThan(0)
  expect(names.filter((name) => !code.includes(`'${name}'`))).toEqual([])
})
