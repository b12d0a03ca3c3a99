import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { excerpt } from '@svc/protocol'
import { Refused } from '../errors.js'
import { git } from '../infra/git.js'

/** `base`, or `base-2`, `base-3`… : the first path nothing occupies. */
export function freePath(base: string): string {
  if (!existsSync(base)) return base
  for (let n = 2; ; n++) if (!existsSync(`${base}-${n}`)) return `${base}-${n}`
}

/** Where a session's worktree lives: next to the repository, `<repo parent>/<repo name>-<title>`. */
export function worktreeHome(root: string, title: string): string {
  return freePath(join(dirname(root), `${basename(root)}-${title}`))
}

async function branchExists(root: string, branch: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await git(root, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], env)
    return true
  } catch {
    return false
  }
}

export interface WorktreePlan {
  path: string
  branch: string
  /** False when the branch exists already: it is then checked out, and not the daemon's to delete. */
  branch_created: boolean
  /** The commit the worktree starts from: the branch's when it exists, else HEAD's. */
  start_sha: string
}

/**
 * The commits HEAD and `refs/heads/<branch>` point at, from one git process (`show-ref`
 * matches the branch by its whole name's tail, so only an exact line counts).
 */
async function tips(root: string, branch: string, env: NodeJS.ProcessEnv): Promise<{ head: string; branch?: string }> {
  const ref = `refs/heads/${branch}`
  let listed: string
  try {
    listed = await git(root, ['show-ref', '--head', '--', ref], env)
  } catch (error) {
    // Exit status 1 is show-ref's "nothing matched", not even HEAD; anything else is a failure.
    if ((error as Error & { cause?: { code?: unknown } }).cause?.code !== 1) throw error
    listed = ''
  }
  const shas = new Map(listed.split('\n').map((line) => [line.slice(line.indexOf(' ') + 1), line.slice(0, line.indexOf(' '))]))
  const head = shas.get('HEAD')
  if (head === undefined) throw new Refused(`the repository at ${excerpt(root)} has no commit yet: commit something before starting a session in a worktree`)
  return { head, branch: shas.get(ref) }
}

/** Where a new session's worktree goes, whether its branch is new and where it starts, known before anything is made. */
export async function planWorktree(root: string, title: string, branch: string, env: NodeJS.ProcessEnv): Promise<WorktreePlan> {
  const tip = await tips(root, branch, env)
  return { path: worktreeHome(root, title), branch, branch_created: tip.branch === undefined, start_sha: tip.branch ?? tip.head }
}

/** The planned worktree: a new branch at the planned commit, or the existing branch. */
export async function addWorktree(root: string, { path, branch, branch_created, start_sha }: WorktreePlan, env: NodeJS.ProcessEnv): Promise<void> {
  await git(root, branch_created ? ['worktree', 'add', '-b', branch, path, start_sha] : ['worktree', 'add', path, branch], env)
}

export async function removeWorktree(root: string, path: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (existsSync(path)) await git(root, ['worktree', 'remove', '--force', path], env)
  await git(root, ['worktree', 'prune'], env)
}

export async function moveWorktree(root: string, from: string, to: string, env: NodeJS.ProcessEnv): Promise<void> {
  await mkdir(dirname(to), { recursive: true })
  await git(root, ['worktree', 'move', from, to], env)
}

export async function deleteBranch(root: string, branch: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (await branchExists(root, branch, env)) await git(root, ['branch', '-D', branch], env)
}

/** The checkout an in-place session runs on: its branch and the commit it starts from (one git process). */
export async function currentCheckout(root: string, env: NodeJS.ProcessEnv): Promise<{ branch: string; start_sha: string }> {
  const [start_sha = '', branch = ''] = (await git(root, ['rev-parse', 'HEAD', '--abbrev-ref', 'HEAD'], env)).trim().split('\n')
  return { branch, start_sha }
}
