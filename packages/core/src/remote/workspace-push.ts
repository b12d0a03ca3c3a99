import { SNAPSHOT_MESSAGE, quote, type AgentServerPushAnswer } from '@svc/protocol'
import { InvalidRequest, Refused } from '../errors.js'
import { git } from '../infra/git.js'

/** Who the snapshot is by when the remote's git knows no one (no user.name/user.email, none guessable). */
const FALLBACK_IDENTITY = ['-c', 'user.name=svc', '-c', 'user.email=svc@localhost']

async function knowsIdentity(dir: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await git(dir, ['var', 'GIT_AUTHOR_IDENT'], env)
    await git(dir, ['var', 'GIT_COMMITTER_IDENT'], env)
    return true
  } catch {
    return false
  }
}

/** Whether origin (fetched now) has HEAD on some branch; a fetch that fails says no. */
async function onOrigin(dir: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await git(dir, ['fetch', '--quiet', 'origin'], env)
    return (await git(dir, ['rev-list', '-n', '1', 'HEAD', '--not', '--remotes=origin'], env)).trim() === ''
  } catch {
    return false
  }
}

/**
 * An agent server's workspace, pushed before its hook session is archived: uncommitted
 * work (untracked files included, ignored ones not) is committed as the snapshot, then
 * HEAD goes to `refs/heads/<branch>` of origin, never forced. A failed push keeps the
 * snapshot commit in the workspace, where a retry pushes it; nothing else changes.
 * `unsavedOnly` (a kill) pushes nothing when origin has HEAD already and nothing was
 * uncommitted: a session that did no work leaves no branch behind.
 */
export async function pushWorkspace(dir: string, branch: string, env: NodeJS.ProcessEnv, unsavedOnly = false): Promise<AgentServerPushAnswer> {
  if (!branch) throw new InvalidRequest('branch is required')
  // No prompt for credentials: nobody is at the remote's terminal to answer it.
  const gitEnv = { ...env, GIT_TERMINAL_PROMPT: '0' }
  try {
    await git(dir, ['check-ref-format', `refs/heads/${branch}`], gitEnv)
  } catch {
    throw new InvalidRequest(`branch ${quote(branch)} is not a valid branch name`)
  }
  const origin = (await git(dir, ['remote', 'get-url', 'origin'], gitEnv).catch((error: Error) => {
    throw new Refused(`the workspace ${dir} has no origin to push to (${error.message})`)
  })).trim()
  let snapshot: string | undefined
  if ((await git(dir, ['status', '--porcelain', '--untracked-files=all'], gitEnv)).trim() !== '') {
    await git(dir, ['add', '--all'], gitEnv)
    const identity = (await knowsIdentity(dir, gitEnv)) ? [] : FALLBACK_IDENTITY
    await git(dir, [...identity, 'commit', '--quiet', '--no-verify', '-m', SNAPSHOT_MESSAGE], gitEnv)
    snapshot = (await git(dir, ['rev-parse', 'HEAD'], gitEnv)).trim()
  }
  const head = snapshot ?? (await git(dir, ['rev-parse', 'HEAD'], gitEnv)).trim()
  if (unsavedOnly && !snapshot && (await onOrigin(dir, gitEnv))) return { origin, branch, head, already_on_origin: true }
  try {
    await git(dir, ['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], gitEnv)
  } catch (error) {
    throw new Refused(`the push of ${head.slice(0, 12)} to branch ${quote(branch)} of ${origin} failed: ${(error as Error).message}`)
  }
  return { origin, branch, head, ...(snapshot ? { snapshot } : {}) }
}
