import { execFileSync } from 'node:child_process'
import { mkdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { servicePaths } from '@svc/protocol'
import { waitFor } from './wait.js'
import { startDaemon, type DaemonOptions, type TestDaemon, type tempHomes } from './harness.js'

export const FAKE_AGENT = fileURLToPath(new URL('../fixtures/fake-agent.mjs', import.meta.url))
export const AGENT = `node ${FAKE_AGENT}`
/**
 * The environment a process wrote to `file` as JSON (the fake agent's `--env-dump`,
 * `dumpEnvCommand`), once it has: a file not there yet, or not all written, is not yet.
 */
export function envDump(file: string): Promise<Record<string, string>> {
  return waitFor(async () => (JSON.parse(await readFile(file, 'utf8')) as Record<string, string> | null) ?? undefined)
}

/**
 * A command line that writes its environment to `file` as JSON, all at once (written
 * beside it, then renamed), so a test that reads it never sees half of it.
 */
export function dumpEnvCommand(file: string): string {
  return `node -e 'const fs = require("fs"); fs.writeFileSync(process.argv[1] + ".part", JSON.stringify(process.env)); fs.renameSync(process.argv[1] + ".part", process.argv[1])' '${file}'`
}
/** Prints screenfuls a few milliseconds apart until stopped. */
export const FLOOD = fileURLToPath(new URL('../fixtures/flood.mjs', import.meta.url))

/** A git repository with one commit, inside `dir` (so worktrees land inside it too). */
export async function makeRepo(dir: string, name = 'repo'): Promise<string> {
  const root = join(dir, name)
  await mkdir(root, { recursive: true })
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' })
  git('init', '-q', '-b', 'main')
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init')
  return root
}

/** A daemon whose `claude` is the fake agent, polling fast. */
export function startSessionDaemon(options: DaemonOptions & { settings?: Record<string, unknown> } = {}): Promise<TestDaemon> {
  return startDaemon({
    ...options,
    config: {
      network: { listen_addr: '' },
      daemon_poll_interval: '200ms',
      lost_restore_backoff: '200ms',
      program_overrides: { claude: AGENT },
      branch_prefix: 'agent/',
      ...options.settings,
    },
  })
}

/** The usual fixture of a test file: a fresh directory with a repository, and a session daemon beside it. */
export async function openSessionDaemon(
  homes: ReturnType<typeof tempHomes>,
  options: Parameters<typeof startSessionDaemon>[0] = {},
): Promise<{ dir: string; repo: string; daemon: TestDaemon }> {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  return { dir, repo, daemon: await startSessionDaemon({ home: join(dir, 'svc'), ...options }) }
}

export function tmuxSessions(home: string): string[] {
  try {
    return execFileSync('tmux', ['-S', servicePaths(home).tmuxSocket, 'list-sessions', '-F', '#{session_name}'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .split('\n')
      .filter(Boolean)
      .sort()
  } catch {
    return []
  }
}

export function paneText(home: string, tmuxName: string): string {
  return execFileSync('tmux', ['-S', servicePaths(home).tmuxSocket, 'capture-pane', '-p', '-t', `=${tmuxName}:`], {
    encoding: 'utf8',
  })
}

export function tmux(home: string, ...args: string[]): string {
  return execFileSync('tmux', ['-S', servicePaths(home).tmuxSocket, ...args], { encoding: 'utf8' })
}

export function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' })
}

export function worktrees(root: string): string[] {
  return git(root, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
}

export function branches(root: string): string[] {
  return git(root, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean).sort()
}

export async function session(daemon: TestDaemon, title: string) {
  const found = (await daemon.client.call('Snapshot', {})).instances.find((instance) => instance.title === title)
  if (!found) throw new Error(`no session ${title}`)
  return found
}

/** Waits until the session reports `liveness_name` (and optionally more). */
export function waitForSession(
  daemon: TestDaemon,
  title: string,
  accept: (instance: Awaited<ReturnType<typeof session>>) => boolean,
  timeoutMs = 15_000,
) {
  return waitFor(async () => {
    const instance = await session(daemon, title).catch(() => undefined)
    return instance && accept(instance) ? instance : undefined
  }, timeoutMs)
}
