import { execFile, execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll } from 'vitest'
import { SVC_VERSION } from '@svc/protocol'
import { packSvc } from '../../../scripts/pack-svc.mjs'
import { startPrivateEngine, type PrivateEngine } from './docker-engine-kit.js'
import { tempHomes, type TestDaemon } from './harness.js'
import { makeHookRepo } from './hook-kit.js'
import { FAKE_AGENT, startSessionDaemon } from './sessions-kit.js'

const run = promisify(execFile)

/** Builds a test image from this machine's node, git and tmux (see the script); `without` leaves one out. */
export const TEST_IMAGE_SCRIPT = fileURLToPath(new URL('../fixtures/docker/test-image.sh', import.meta.url))

/** The checkout's portable svc, which svc installs into containers (as a checkout's daemon finds it). */
const ARTIFACT = fileURLToPath(new URL(`../../../dist-pack/svc-${SVC_VERSION}-${process.platform}-${process.arch}.tar.gz`, import.meta.url))

/** The test fixtures (the fake agent): mounted read-only into every container at the same path. */
const FIXTURES = dirname(FAKE_AGENT)

/** `docker <args>`'s stdout; throws its stderr. */
export function docker(...args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

/**
 * The portable svc the containers get: dist-pack's, packed once when it is missing
 * (packed beside and renamed, so test files that pack at once never see half a tarball).
 */
export async function ensureArtifact(): Promise<string> {
  if (existsSync(ARTIFACT)) return ARTIFACT
  const stage = await mkdtemp(join(tmpdir(), 'svc-artifact-'))
  try {
    const { path } = await packSvc({ outDir: stage })
    await mkdir(dirname(ARTIFACT), { recursive: true })
    await copyFile(path, `${ARTIFACT}.${process.pid}`)
    await rename(`${ARTIFACT}.${process.pid}`, ARTIFACT)
  } finally {
    await rm(stage, { recursive: true, force: true })
  }
  return ARTIFACT
}

/** A locally built image named `tag`; `without` leaves git, tmux or node out of it. */
export async function buildTestImage(tag: string, without?: 'git' | 'tmux' | 'node'): Promise<string> {
  await run('sh', [TEST_IMAGE_SCRIPT, tag, ...(without ? ['--without', without] : [])], { maxBuffer: 16 * 1024 * 1024 })
  return tag
}

/** Removes images; one that is already gone is fine. */
export function removeImages(...tags: string[]): void {
  for (const tag of tags) {
    try {
      docker('image', 'rm', '-f', tag)
    } catch {
      // Not there.
    }
  }
}

/** The containers carrying a label (`name=value`), running or not. */
export function containersLabelled(label: string): string[] {
  return docker('ps', '-a', '--format', '{{.Names}}', '--filter', `label=${label}`).split('\n').filter(Boolean)
}

/** The `svc.home` id of a daemon's home (see core's home-id.ts); undefined before its first container. */
export function homeIdOf(home: string): string | undefined {
  const file = join(home, 'home-id')
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined
}

/** A home daemon set up for docker sessions, a repository with a bare origin, the image they run. */
export interface DockerWorld {
  dir: string
  repo: string
  origin: string
  image: string
  daemon: TestDaemon
  /** With `privateEngine`: the engine the world runs on (docker.host and this process's DOCKER_HOST name it). */
  engine?: PrivateEngine
  /** The daemon stopped with `signal` (SIGKILL: a crash), `meanwhile` run, and the daemon started again on its home, as it was. */
  restart(signal?: NodeJS.Signals, meanwhile?: () => Promise<void>): Promise<void>
}

export interface DockerWorldOptions {
  /** Run on an engine of the file's own (see startPrivateEngine), which it may stop and start. */
  privateEngine?: boolean
  /** More of the home daemon's settings and environment. */
  settings?: Record<string, unknown>
  env?: Record<string, string>
}

/** The home daemon's settings for docker sessions of `image`: the fake agent's directory mounted read-only. */
export function dockerSettings(image: string, host = ''): Record<string, unknown> {
  return { docker: { image, host, run_args: `-v ${FIXTURES}:${FIXTURES}:ro` } }
}

/** Removes every container a daemon's home made. */
export function removeContainersOf(home: string): void {
  const id = homeIdOf(home)
  if (!id) return
  for (const name of containersLabelled(`svc.home=${id}`)) docker('rm', '-f', '-v', name)
}

/**
 * A docker world for the tests of the file it is called in: the image built, the
 * artifact packed when missing, the daemon started with SVC_ARTIFACT; afterwards its
 * containers, the image and the homes removed.
 */
export function useDockerWorld({ privateEngine = false, settings = {}, env = {} }: DockerWorldOptions = {}): DockerWorld {
  const homes = tempHomes()
  const world = {} as DockerWorld
  beforeAll(async () => {
    if (privateEngine) {
      world.engine = await startPrivateEngine()
      // This file's docker commands (and the image build) go to it too.
      process.env.DOCKER_HOST = world.engine.host
    }
    // Named before it is built: removed afterwards even when the build fails half way.
    world.image = `svc-test:${process.pid}-${Date.now().toString(36)}`
    const [artifact] = await Promise.all([ensureArtifact(), buildTestImage(world.image)])
    const { dir, repo, origin } = await makeHookRepo(homes)
    Object.assign(world, { dir, repo, origin })
    const base = dockerSettings(world.image, world.engine?.host)
    const merged = { ...base, ...settings, docker: { ...(base.docker as object), ...(settings.docker as object | undefined) } }
    const options = { home: join(dir, 'svc'), env: { SVC_ARTIFACT: artifact, ...env }, settings: merged }
    world.daemon = await startSessionDaemon(options)
    world.restart = async (signal, meanwhile) => {
      await world.daemon.stop(signal)
      await meanwhile?.()
      world.daemon = await startSessionDaemon(options)
    }
  }, 300_000)
  afterAll(async () => {
    if (world.daemon) await world.daemon.stop()
    // A private engine's containers and images go with its data root (close), even when a failed test left it stopped.
    if (!world.engine) {
      if (world.daemon) removeContainersOf(world.daemon.home)
      if (world.image) removeImages(world.image)
    }
    await world.engine?.close()
    await homes.release()
  }, 120_000)
  return world
}
