import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { InvalidRequest } from '../errors.js'
import { excerpt } from '@svc/protocol'

const run = promisify(execFile)

/** Runs git in `cwd`; a failure carries git's own message. */
export async function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await run('git', args, { cwd, env: env ?? process.env, maxBuffer: 16 * 1024 * 1024 })
    return stdout
  } catch (error) {
    const failure = error as { stderr?: string; message: string }
    throw new Error(`git ${args[0]}: ${(failure.stderr || failure.message).trim()}`, { cause: error })
  }
}

/** `repo_id`: the first 12 hex characters of sha256 of the repository's main root path. */
export function repoIdOf(root: string): string {
  return createHash('sha256').update(root).digest('hex').slice(0, 12)
}

export interface Repository {
  /** The main working tree's root, even when `path` is inside a linked worktree. */
  root: string
  id: string
}

const known = new Map<string, Repository>()
/** Paths asked about are any paths inside any checkout: the memo is bounded. */
const KNOWN_LIMIT = 1_000

/**
 * The repository a path belongs to; an InvalidRequest when it is not in a git checkout.
 * Answers are remembered per path while the checkout is still there, since every
 * session creation asks.
 */
export async function resolveRepository(path: string): Promise<Repository> {
  const absolute = resolve(path)
  const cached = known.get(absolute)
  if (cached && existsSync(join(cached.root, '.git'))) return cached
  const repo = await lookUpRepository(absolute)
  if (known.size >= KNOWN_LIMIT) known.clear()
  known.set(absolute, repo)
  return repo
}

async function lookUpRepository(path: string): Promise<Repository> {
  if (!existsSync(path)) throw new InvalidRequest(`${excerpt(path)} is not inside a git checkout (it does not exist)`)
  let common: string
  try {
    common = (await git(path, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).trim()
  } catch (error) {
    throw new InvalidRequest(`${excerpt(path)} is not inside a git checkout (${(error as Error).message})`)
  }
  // The common dir of a non-bare repository is <root>/.git, shared by all its worktrees.
  const root = common.endsWith('/.git') ? dirname(common) : common
  return { root, id: repoIdOf(root) }
}
