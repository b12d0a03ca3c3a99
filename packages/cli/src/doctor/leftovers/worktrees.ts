import { existsSync } from 'node:fs'
import { basename, dirname, sep } from 'node:path'
import { deleteBranch, escapeRegExp, removeWorktree } from '@svc/core'
import type { Leftover, LeftoverFinder, Scope } from './leftover.js'
import { branchKey, type Named } from './named.js'
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

/** Whether a record names the worktree, by its path or its branch (a session's worktree someone moved by hand). */
const namedWorktree = (root: string, entry: WorktreeEntry, named: Named) =>
  named.paths.has(entry.path) || (entry.branch !== undefined && named.branches.has(branchKey(root, entry.branch)))

/** svc's worktrees no session names; removing one removes its branch too when svc made it and it holds nothing. */
async function worktreeLeftovers(root: string, listed: WorktreeEntry[], scope: Scope): Promise<Leftover[]> {
  const linked = listed.slice(1).filter((entry) => !namedWorktree(root, entry, scope.named) && madeBySvc(root, entry, scope))
  return linked.map((entry) => ({
    kind: 'worktree',
    what: `${entry.path} (branch ${entry.branch})`,
    why: `a worktree of ${root} no session names`,
    namedByRecords: true,
    holds: () => workHeld(root, entry.branch, entry.path),
    stillLeftover: async (now) => !namedWorktree(root, entry, now) && (await worktreesOf(root)).some((listed) => listed.path === entry.path),
    remove: async () => {
      await removeWorktree(root, entry.path, process.env)
      // The branch goes with it when svc made it; held() found no commit of its own on it.
      if (entry.branch && (await madeAtCommit(root, entry.branch))) await deleteBranch(root, entry.branch, process.env)
    },
    byHand: `git -C ${root} worktree remove ${entry.path} once its work is safe`,
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
