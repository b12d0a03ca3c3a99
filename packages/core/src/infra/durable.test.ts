import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { readIfExists, writeFileDurable } from './durable.js'

let dir = ''
afterEach(() => rm(dir, { recursive: true, force: true }))

it('replaces a file whole, at the given mode, leaving no temp files', async () => {
  dir = await mkdtemp('/tmp/svc-')
  const path = join(dir, 'state.json')
  expect(await readIfExists(path)).toBeUndefined()
  await writeFileDurable(path, 'one')
  await Promise.all(Array.from({ length: 20 }, (_, i) => writeFileDurable(path, `value ${i}`)))
  expect(await readFile(path, 'utf8')).toMatch(/^value \d+$/)
  expect((await stat(path)).mode & 0o777).toBe(0o600)
  expect(await readdir(dir)).toEqual(['state.json'])
})
