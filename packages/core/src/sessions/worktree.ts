import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
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
}

/** Where a new session's worktree goes and whether its branch is new, known before anything is made. */
export async function planWorktree(root: string, title: string, branch: string, env: NodeJS.ProcessEnv): Promise<WorktreePlan> {
  return { path: worktreeHome(root, title), branch, branch_created: !(await branchExists(root, branch, env)) }
}

/**
 * The planned worktree: a new branch based on the repository's current HEAD (resolved
 * first so the worktree starts from exactly it), or the existing branch. Answers the
 * commit the worktree starts from.
 */
export async function addWorktree(root: string, { path, branch, branch_created }: WorktreePlan, env: NodeJS.ProcessEnv): Promise<string> {
  if (!branch_created) {
    await git(root, ['worktree', 'add', path, branch], env)
    return revParse(root, `refs/heads/${branch}`, env)
  }
  const head = await revParse(root, 'HEAD', env)
  await git(root, ['worktree', 'add', '-b', branch, path, head], env)
  return head
}

async function revParse(root: string, rev: string, env: NodeJS.ProcessEnv): Promise<string> {
  return (await git(root, ['rev-parse', '--verify', rev], env)).trim()
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
export async function currentCheckout(root: string, env: NodeJS.ProcessEnv): Promise<{ branch: string; baseSha: string }> {
  const [baseSha = '', branch = ''] = (await git(root, ['rev-parse', 'HEAD', '--abbrev-ref', 'HEAD'], env)).trim().split('\n')
  return { branch, baseSha }
}
