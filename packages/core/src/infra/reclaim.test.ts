import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { servicePaths } from '@svc/protocol'
import { stageFileDurable } from './durable.js'
import { atomicWriteDirs, reclaimHome } from './reclaim.js'

let dir = ''
afterEach(() => rm(dir, { recursive: true, force: true }))

it('removes the temp file of an interrupted write in every directory written atomically, even one named with its own pid', async () => {
  dir = await mkdtemp('/tmp/svc-')
  const paths = servicePaths(dir)
  const dirs = atomicWriteDirs(paths)
  expect(dirs).toEqual(expect.arrayContaining([paths.home, paths.sessionRecords, paths.creating, paths.handoffs]))
  for (const each of dirs) {
    await mkdir(each, { recursive: true })
    await writeFile(join(each, 'state.json'), 'whole')
    // A write staged and never installed: what a kill between the two leaves, named with
    // this process's pid, as a daemon restarted in a container under the same pid sees it.
    await stageFileDurable(join(each, 'state.json'), 'half')
  }
  await writeFile(join(dir, 'notes.tmp'), 'not a temp file of ours')

  const reclaimed = await reclaimHome(paths)
  expect(reclaimed.tempFiles).toHaveLength(dirs.length)
  for (const each of dirs) {
    const names = await readdir(each)
    expect(names).toContain('state.json')
    expect(names.filter((name) => name.endsWith('.tmp') && name !== 'notes.tmp'), each).toEqual([])
  }
  expect(await readdir(dir)).toContain('notes.tmp')
})
