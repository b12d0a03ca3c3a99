import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseRepoConfig, sha256Of } from './repo.js'
import { trustedContent, TrustedRepoConfigs } from './trust.js'

let dir: string
let root: string
beforeEach(async () => {
  dir = await mkdtemp('/tmp/svc-')
  root = join(dir, 'repo')
  await mkdir(join(root, 'hooks'), { recursive: true })
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const hooks = (remote_hooks: Record<string, string>) => parseRepoConfig(JSON.stringify({ remote_hooks }), join(root, '.svc', 'config.json'))
const at = new Date('2026-01-02T03:04:05Z')

describe('trustedContent', () => {
  it('hashes the repository files the hooks run, a missing one as null, and nothing on PATH or outside', async () => {
    await writeFile(join(root, 'hooks', 'launch.sh'), '#!/bin/sh\n')
    await writeFile(join(dir, 'outside.sh'), '#!/bin/sh\n')
    const document = hooks({
      launch_cmd: ' ./hooks/launch.sh --zone a',
      provision_cmd: `${root}/hooks/missing.sh`,
      delete_cmd: 'kubectl delete',
    })
    expect(await trustedContent(root, document)).toEqual({
      sha256: document.sha256,
      scripts: { 'hooks/launch.sh': sha256Of('#!/bin/sh\n'), 'hooks/missing.sh': null },
    })
    for (const outside of ['../outside.sh', join(dir, 'outside.sh'), 'sh ../outside.sh', 'kubectl run --image hooks']) {
      expect((await trustedContent(root, hooks({ launch_cmd: outside }))).scripts).toEqual({})
    }
    // A script handed to an interpreter is the repository's too.
    expect((await trustedContent(root, hooks({ launch_cmd: 'sh hooks/launch.sh --zone a' }))).scripts).toEqual({ 'hooks/launch.sh': sha256Of('#!/bin/sh\n') })
  })

  it('hashes the bytes, and a link by its target', async () => {
    await writeFile(join(dir, 'a'), Buffer.from([0xff]))
    await writeFile(join(dir, 'b'), Buffer.from([0xfe]))
    await symlink(join(dir, 'a'), join(root, 'hooks', 'a'))
    await symlink(join(dir, 'b'), join(root, 'hooks', 'b'))
    const { scripts } = await trustedContent(root, hooks({ launch_cmd: 'hooks/a', delete_cmd: 'hooks/b' }))
    expect(scripts['hooks/a']).not.toBe(scripts['hooks/b'])
  })
})

describe('TrustedRepoConfigs', () => {
  const store = () => new TrustedRepoConfigs(join(dir, 'trusted-repo-configs.json'))
  const launching = () => trustedContent(root, hooks({ launch_cmd: './hooks/launch.sh', delete_cmd: './hooks/delete.sh' }))

  it('trusts the content it recorded, and names what changed since', async () => {
    const trust = store()
    await writeFile(join(root, 'hooks', 'launch.sh'), 'v1')
    expect(await trust.untrusted(root, await launching())).toEqual({ kind: 'new' })
    await trust.trust(root, await launching(), at)
    expect(await trust.untrusted(root, await launching())).toBeUndefined()

    await writeFile(join(root, 'hooks', 'launch.sh'), 'v2')
    expect(await trust.untrusted(root, await launching())).toEqual({ kind: 'scripts', paths: ['hooks/launch.sh'] })
    await writeFile(join(root, 'hooks', 'launch.sh'), 'v1')
    await writeFile(join(root, 'hooks', 'delete.sh'), 'created')
    expect(await trust.untrusted(root, await launching())).toEqual({ kind: 'scripts', paths: ['hooks/delete.sh'] })
    const other = await trustedContent(root, hooks({ launch_cmd: './hooks/launch.sh' }))
    expect(await trust.untrusted(root, other)).toEqual({ kind: 'config' })
  })

  it('takes a record of the config alone, from before scripts were recorded, as vouching for no script', async () => {
    const content = await launching()
    await writeFile(store().path, JSON.stringify({ repositories: { [root]: { sha256: content.sha256, trusted_at: at.toISOString() } } }))
    expect(await store().untrusted(root, content)).toEqual({ kind: 'unrecorded', paths: ['hooks/launch.sh', 'hooks/delete.sh'] })
    const bare = await trustedContent(root, hooks({ launch_cmd: 'launch-pod' }))
    await writeFile(store().path, JSON.stringify({ repositories: { [root]: { sha256: bare.sha256, trusted_at: at.toISOString() } } }))
    expect(await store().untrusted(root, bare)).toBeUndefined()
  })
})
