import { existsSync } from 'node:fs'
import { basename, dirname, sep } from 'node:path'
import { deleteBranch, escapeRegExp, removeWorktree } from '@svc/core'
import type { Leftover, LeftoverFinder, Scope } from './leftover.js'
import { branchKey } from './named.js'
import { localBranches, madeAtCommit, workHeld, worktreesOf, type WorktreeEntry } from './git-work.js'

/**
 * Whether svc made this worktree, by where it put it: beside the repository as
 * `<name>-<title>` (or `-<title>-<n>`) on the branch `<branch_prefix><title>`, or moved
 * under SERVICE_HOME's archived/.
 */
function madeBySvc(root: string, entry: WorktreeEntry, { paths, settings }: Scope): boolean {
  const prefix = settings.branch_prefix
  if (!entry.branch?.startsWith(prefix)) return false
  if (entry.path.startsWith(`${paths.archived}${sep}`)) return true
  const title = entry.branch.slice(prefix.length)
  const beside = new RegExp(`^${escapeRegExp(`${basename(root)}-${title}`)}(-\\d+)?$`)
  return dirname(entry.path) === dirname(root) && beside.test(basename(entry.path))
}

/** svc's worktrees no session names; removing one removes its branch too when svc made it and it holds nothing. */
async function worktreeLeftovers(root: string, listed: WorktreeEntry[], scope: Scope): Promise<Leftover[]> {
  const linked = listed.slice(1).filter((entry) => !scope.named.paths.has(entry.path) && madeBySvc(root, entry, scope))
  return linked.map(({ path, branch }) => ({
    kind: 'worktree',
    what: `${path} (branch ${branch})`,
    why: `a worktree of ${root} no session names`,
    namedByRecords: true,
    holds: () => workHeld(root, branch, path),
    stillLeftover: async (now) => !now.paths.has(path) && (await worktreesOf(root)).some((entry) => entry.path === path),
    remove: async (now) => {
      await removeWorktree(root, path, process.env)
      if (branch && !now.branches.has(branchKey(root, branch)) && (await madeAtCommit(root, branch))) await deleteBranch(root, branch, process.env)
    },
    byHand: `git -C ${root} worktree remove ${path} once its work is safe`,
  }))
}

/** Branches with svc's prefix that svc made (madeAtCommit), no session names and no worktree has checked out. */
async function branchLeftovers(root: string, listed: WorktreeEntry[], scope: Scope): Promise<Leftover[]> {
  const checkedOut = new Set(listed.map((entry) => entry.branch))
  const candidates = (await localBranches(root)).filter(
    (branch) => branch.startsWith(scope.settings.branch_prefix) && !checkedOut.has(branch) && !scope.named.branches.has(branchKey(root, branch)),
  )
  const made = await Promise.all(candidates.map((branch) => madeAtCommit(root, branch)))
  return candidates
    .filter((_, i) => made[i])
    .map((branch) => ({
      kind: 'branch',
      what: `${branch} in ${root}`,
      why: 'made for a session that no longer exists',
      namedByRecords: true,
      holds: () => workHeld(root, branch),
      stillLeftover: async (now) => !now.branches.has(branchKey(root, branch)) && (await localBranches(root)).includes(branch),
      remove: () => deleteBranch(root, branch, process.env),
      byHand: `git -C ${root} branch -D ${branch} once its commits are safe`,
    }))
}

export const worktrees: LeftoverFinder = async (scope) => {
  const found: Leftover[] = []
  for (const root of scope.repos.filter((repo) => existsSync(repo))) {
    const listed = await worktreesOf(root)
    found.push(...(await worktreeLeftovers(root, listed, scope)), ...(await branchLeftovers(root, listed, scope)))
  }
  return found
}
