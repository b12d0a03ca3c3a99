import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'
import { CLI_MAIN, tempHomes, type TestDaemon } from './harness.js'
import { makePlace, type Place } from './netns.js'
import { FAKE_AGENT, git, makeRepo, startSessionDaemon } from './sessions-kit.js'
import { alive } from './wait.js'

/** The test launch_cmd and delete_cmd: a real `svc agent-server` per slug, in the place given. */
export const HOOK_LAUNCH = fileURLToPath(new URL('../fixtures/hooks/launch.mjs', import.meta.url))
export const HOOK_DELETE = fileURLToPath(new URL('../fixtures/hooks/delete.mjs', import.meta.url))

/** A home daemon, a repository with a bare origin, and hooks that start agent servers in `place`. */
export interface HookWorld {
  dir: string
  repo: string
  origin: string
  /** Where the hooks keep each slug's clone and agent server, and `calls.log`. */
  state: string
  place: Place
  daemon: TestDaemon
}

export interface HookCall {
  hook: 'launch' | 'delete'
  argv: string[]
  /** launch only: the names of the environment it ran with. */
  env?: string[]
}

/** The repository's .svc/config.json naming the test hooks (not yet trusted). */
export function hookConfig(state: string, place: Place): Record<string, unknown> {
  const netns = 'name' in place ? ` --netns ${(place as Place & { name: string }).name}` : ''
  return {
    remote_hooks: {
      launch_cmd: `node ${HOOK_LAUNCH} --state ${state} --svc ${CLI_MAIN} --agent ${FAKE_AGENT} --listen ${place.address}:0${netns}`,
      delete_cmd: `node ${HOOK_DELETE} --state ${state}`,
    },
  }
}

/**
 * The home daemon's settings a hook world needs: the test agent servers answer on plain
 * http at the place's address, which is not loopback when the place is a namespace.
 */
export function hookSettings(place: Place): Record<string, unknown> {
  return { remote_insecure_http_hosts: [place.address] }
}

/** A fresh dir holding a repository whose main is pushed to its bare origin there, and an empty state dir for the hooks. */
export async function makeHookRepo(homes: ReturnType<typeof tempHomes>): Promise<{ dir: string; repo: string; origin: string; state: string }> {
  const dir = await homes.make()
  const origin = join(dir, 'o.git')
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin])
  const repo = await makeRepo(dir)
  git(repo, 'remote', 'add', 'origin', origin)
  git(repo, 'push', '-q', 'origin', 'main')
  const state = join(dir, 'r')
  await mkdir(state)
  return { dir, repo, origin, state }
}

/** Makes the world; the repository's config is trusted unless `trust` is false; `settings` go into the home daemon's config. */
export async function openHookWorld(
  homes: ReturnType<typeof tempHomes>,
  { trust = true, env = {}, settings = {} }: { trust?: boolean; env?: Record<string, string>; settings?: Record<string, unknown> } = {},
): Promise<HookWorld> {
  const { dir, repo, origin, state } = await makeHookRepo(homes)
  const place = await makePlace()
  await mkdir(join(repo, '.svc'))
  await writeFile(join(repo, '.svc', 'config.json'), JSON.stringify(hookConfig(state, place)))
  const daemon = await startSessionDaemon({ home: join(dir, 'svc'), env, settings: { ...hookSettings(place), ...settings } })
  if (trust) await daemon.client.call('TrustProject', { path: repo })
  return { dir, repo, origin, state, place, daemon }
}

/**
 * Opens a hook world (`openHookWorld` with `options`) before the tests of the file or
 * describe it is called in, and closes it and its homes after: the object returned is
 * that world from then on.
 */
export function useHookWorld(options?: Parameters<typeof openHookWorld>[1]): HookWorld {
  const homes = tempHomes()
  const world = {} as HookWorld
  beforeAll(async () => {
    Object.assign(world, await openHookWorld(homes, options))
  })
  afterAll(async () => {
    await closeHookWorld('daemon' in world ? world : undefined)
    await homes.release()
  })
  return world
}

/** What the hooks were run with, in order. */
export function hookCalls(state: string): HookCall[] {
  const log = join(state, 'calls.log')
  if (!existsSync(log)) return []
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as HookCall)
}

/** The slugs whose clone and agent server are still there. */
export function remoteDirs(state: string): string[] {
  return readdirSync(state, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()
}

/** The pid of the agent server launched for `slug`. */
export function remotePid(state: string, slug: string): number {
  return Number(readFileSync(join(state, slug, 'pid'), 'utf8'))
}

/** The agent server's home and endpoint for `slug`, as launch.mjs started it. */
export function remoteOf(state: string, slug: string): { home: string; workspace: string; url: string; token: string } {
  const endpoint = JSON.parse(readFileSync(join(state, slug, 'endpoint.json'), 'utf8')) as { url: string; token: string }
  return { home: join(state, slug, 'h'), workspace: join(state, slug, 'ws'), ...endpoint }
}

/** Kills what the hooks left running (agent servers and their tmux servers) and takes the place down. */
export async function closeHookWorld(world: HookWorld | undefined): Promise<void> {
  if (!world) return
  if (existsSync(world.state)) {
    for (const slug of remoteDirs(world.state)) {
      const pidFile = join(world.state, slug, 'pid')
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : 0
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL')
      try {
        execFileSync('tmux', ['-S', join(world.state, slug, 'h', 'tmux.sock'), 'kill-server'], { stdio: 'ignore' })
      } catch {
        // No tmux server there.
      }
    }
  }
  await world.place.remove()
}
