import { spawnSync, execFileSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SVC_VERSION } from '@svc/protocol'
import { NOTHING_MADE_EXIT } from './remote-scripts.js'
import { installScript, probed, probeScript, svcArtifact, svcCommand, type SvcArtifact } from './svc-install.js'

let dir: string
let artifact: SvcArtifact

/** A tarball shaped as pack-svc makes one: svc-<…>/bin/svc. */
async function tarball(name: string): Promise<string> {
  const tree = join(dir, 'stage', name)
  await mkdir(join(tree, 'bin'), { recursive: true })
  await writeFile(join(tree, 'bin/svc'), '#!/bin/sh\necho svc "$@"\n')
  await chmod(join(tree, 'bin/svc'), 0o755)
  const path = join(dir, `${name}.tar.gz`)
  execFileSync('tar', ['-czf', path, '-C', join(dir, 'stage'), name])
  return path
}

function sh(script: string, { input, path = process.env.PATH }: { input?: Buffer; path?: string } = {}) {
  const run = spawnSync('sh', ['-c', script], { input, env: { PATH: path, HOME: join(dir, 'home') }, encoding: 'utf8' })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

beforeEach(async () => {
  dir = await mkdtemp('/tmp/svc-')
  await mkdir(join(dir, 'home'))
  artifact = await svcArtifact(dir, { SVC_ARTIFACT: await tarball(`svc-9.8.7-${process.platform}-${process.arch}`) })
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('svcArtifact', () => {
  it('reads SVC_ARTIFACT: version, platform and sha256 from the tarball', async () => {
    expect(artifact).toMatchObject({ name: `svc-9.8.7-${process.platform}-${process.arch}`, version: '9.8.7', os: process.platform, arch: process.arch })
    const sum = execFileSync('sha256sum', [artifact.tarball], { encoding: 'utf8' }).split(' ')[0]
    expect(artifact.sha256).toBe(sum)
  })

  it('refuses a tarball not named svc-<version>-<os>-<arch>.tar.gz', async () => {
    await writeFile(join(dir, 'other.tar.gz'), '')
    await expect(svcArtifact(dir, { SVC_ARTIFACT: join(dir, 'other.tar.gz') })).rejects.toThrow(/is not named svc-<version>-<os>-<arch>/)
  })

  it('packs an installed portable svc once into the home, its entries under ./', async () => {
    const root = join(dir, 'installed')
    await mkdir(join(root, 'bin'), { recursive: true })
    await mkdir(join(root, 'lib'))
    await writeFile(join(root, 'bin/svc'), '')
    await writeFile(join(root, 'lib/daemon.mjs'), '')
    const home = join(dir, 'state')
    const packed = await svcArtifact(home, {}, pathToFileURL(join(root, 'lib/daemon.mjs')).href)
    expect(packed.tarball).toBe(join(home, 'artifacts', `svc-${SVC_VERSION}-${process.platform}-${process.arch}.tar.gz`))
    expect(execFileSync('tar', ['-tzf', packed.tarball], { encoding: 'utf8' }).split('\n')).toContain('./bin/svc')
    await writeFile(join(root, 'bin/svc'), 'changed')
    expect((await svcArtifact(home, {}, pathToFileURL(join(root, 'lib/daemon.mjs')).href)).sha256).toBe(packed.sha256)
  })

  it('says how to make one when a checkout has none packed', async () => {
    const here = pathToFileURL(join(dir, 'a/b/c/d/svc-install.js')).href
    await expect(svcArtifact(dir, {}, here)).rejects.toThrow(/run pnpm pack:svc/)
  })
})

describe('probeScript and installScript', () => {
  const target = '"$HOME"/.svc-agent/versions/9.8.7'

  it('installs once from stdin: absent, then installed, and the installed svc runs', async () => {
    expect(probed(sh(probeScript(artifact, target)).stdout)).toBe('absent')
    const install = sh(installScript(artifact, target), { input: await readFile(artifact.tarball) })
    expect(install).toMatchObject({ code: 0 })
    expect(probed(sh(probeScript(artifact, target)).stdout)).toBe('installed')
    expect(sh(`${svcCommand(target)} agent-server`).stdout.trim()).toBe('svc agent-server')
    expect(await readFile(join(dir, 'home/.svc-agent/versions/9.8.7/.sha256'), 'utf8')).toBe(`${artifact.sha256}\n`)
  })

  it('installs from a file copied in', () => {
    expect(sh(installScript(artifact, target, artifact.tarball))).toMatchObject({ code: 0 })
    expect(probed(sh(probeScript(artifact, target)).stdout)).toBe('installed')
  })

  it('refuses a damaged tarball and installs nothing', async () => {
    const bytes = await readFile(artifact.tarball)
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 10) ^ 0xff, bytes.length - 10)
    const install = sh(installScript(artifact, target), { input: bytes })
    expect(install.code).toBe(NOTHING_MADE_EXIT)
    expect(install.stderr).toMatch(/arrived damaged/)
    expect(await readdir(join(dir, 'home/.svc-agent/versions'))).toEqual([])
  })

  it('names each missing prerequisite', async () => {
    const bin = join(dir, 'bin')
    await mkdir(bin)
    const tools = ['sh', 'cat', 'uname', 'node', 'git', 'tar']
    for (const tool of tools) {
      const found = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim()
      await symlink(found, join(bin, tool))
    }
    const probe = sh(probeScript(artifact, target), { path: bin })
    expect(probe.code).toBe(NOTHING_MADE_EXIT)
    expect(probe.stderr).toMatch(/^tmux is not installed here; svc needs Node.js 20 or newer, git and tmux/)
    await rm(join(bin, 'node'))
    expect(sh(probeScript(artifact, target), { path: bin }).stderr).toMatch(/^node is not installed here/)
  })

  it('refuses a machine of another platform', () => {
    const other = { ...artifact, os: 'plan9', arch: 'mips' }
    const probe = sh(probeScript(other, target))
    expect(probe.code).toBe(NOTHING_MADE_EXIT)
    expect(probe.stderr).toMatch(/svc can install only its own plan9-mips build here/)
  })
})
