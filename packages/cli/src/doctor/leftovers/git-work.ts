import { existsSync } from 'node:fs'
import { git } from '@svc/core'

/** A linked worktree as `git worktree list --porcelain` shows it. */
export interface WorktreeEntry {
  path: string
  /** Without `refs/heads/`; absent on a detached HEAD. */
  branch?: string
}

/** The repository's worktrees, its main one first. */
export async function worktreesOf(root: string): Promise<WorktreeEntry[]> {
  const text = await git(root, ['worktree', 'list', '--porcelain'])
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const lines = block.split('\n')
      const path = lines.find((line) => line.startsWith('worktree '))?.slice('worktree '.length) ?? ''
      const branch = lines.find((line) => line.startsWith('branch refs/heads/'))?.slice('branch refs/heads/'.length)
      return { path, ...(branch ? { branch } : {}) }
    })
}

export async function localBranches(root: string): Promise<string[]> {
  return (await git(root, ['for-each-ref', '--format=%(refname:short)', 'refs/heads'])).split('\n').filter(Boolean)
}

/** How many commits `branch` has that no other branch, remote-tracking branch or tag holds. */
async function uniqueCommits(root: string, branch: string): Promise<number> {
  const listed = await git(root, ['rev-list', '--count', `refs/heads/${branch}`, '--not', `--exclude=${branch}`, '--branches', '--remotes', '--tags'])
  return Number(listed.trim())
}

/**
 * The work a branch (and its worktree, if it has one) holds that would be lost with them:
 * uncommitted changes, or commits on no other branch or remote. Undefined when none.
 */
export async function workHeld(root: string, branch: string | undefined, worktree?: string): Promise<string | undefined> {
  if (worktree && existsSync(worktree)) {
    const changes = (await git(worktree, ['status', '--porcelain'])).split('\n').filter(Boolean).length
    if (changes > 0) return `${changes} uncommitted change${changes === 1 ? '' : 's'}`
  }
  if (branch === undefined) return worktree && existsSync(worktree) ? 'a detached HEAD' : undefined
  const commits = await uniqueCommits(root, branch)
  return commits > 0 ? `${commits} commit${commits === 1 ? '' : 's'} on no other branch or remote` : undefined
}

/**
 * Whether git says svc made the branch: its first reflog entry is `git worktree add -b`'s
 * "Created from <full sha>" (svc always starts a branch at a commit); a person's
 * `git switch -c` or `git branch` says "Created from HEAD" or a name.
 */
export async function madeAtCommit(root: string, branch: string): Promise<boolean> {
  const entries = await git(root, ['log', '-g', '--format=%gs', `refs/heads/${branch}`, '--']).catch(() => '')
  const first = entries.trim().split('\n').at(-1) ?? ''
  return /^branch: Created from [0-9a-f]{40}$/.test(first)
}
