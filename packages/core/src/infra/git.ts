import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { dirname, resolve } from 'node:path'
import { promisify } from 'node:util'
import { InvalidRequest } from '../errors.js'

const run = promisify(execFile)

/** Runs git in `cwd`; a failure carries git's own message. */
export async function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await run('git', args, { cwd, env: env ?? process.env, maxBuffer: 16 * 1024 * 1024 })
    return stdout
  } catch (error) {
    const failure = error as { stderr?: string; message: string }
    throw new Error(`git ${args[0]}: ${(failure.stderr || failure.message).trim()}`)
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

/** The repository a path belongs to; an InvalidRequest when it is not in a git checkout. */
export async function resolveRepository(path: string): Promise<Repository> {
  let common: string
  try {
    common = (await git(resolve(path), ['rev-parse', '--path-format=absolute', '--git-common-dir'])).trim()
  } catch (error) {
    throw new InvalidRequest(`${path} is not inside a git checkout (${(error as Error).message})`)
  }
  // The common dir of a non-bare repository is <root>/.git, shared by all its worktrees.
  const root = common.endsWith('/.git') ? dirname(common) : common
  return { root, id: repoIdOf(root) }
}
