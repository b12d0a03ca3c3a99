import { git } from '../infra/git.js'

/** Lines of git output a brief repeats at most; the review commands show the rest. */
const LISTED = 40

export type HandoffReason = 'usage-limit' | 'handed-over'

/** What is on the session's branch, read from git when the work changes hands. */
export interface WorkState {
  head_sha: string
  base_sha: string
  /** `git log --oneline` of the commits since the base, newest first. */
  commits: string[]
  /** `git status --porcelain` lines. */
  uncommitted: string[]
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '')
}

export async function workState(path: string, baseSha: string | undefined, env: NodeJS.ProcessEnv): Promise<WorkState> {
  const head_sha = (await git(path, ['rev-parse', 'HEAD'], env)).trim()
  const base_sha = baseSha || head_sha
  const commits = lines(await git(path, ['log', '--oneline', '--no-decorate', `${base_sha}..HEAD`], env))
  const uncommitted = lines(await git(path, ['status', '--porcelain', '--untracked-files=all'], env))
  return { head_sha, base_sha, commits, uncommitted }
}

export interface Mission {
  from: string
  to: string
  reason: HandoffReason
  /** The previous agent was stopped while it was working: its last step may be half done. */
  interrupted: boolean
  /** The brief the user gave, else the session's first prompt. */
  goal: string | undefined
  branch: string
  path: string
  work: WorkState
}

function listed(title: string, entries: string[], none: string): string[] {
  if (entries.length === 0) return [`${title}: ${none}`]
  const more = entries.length > LISTED ? [`  … and ${entries.length - LISTED} more`] : []
  return [`${title} (${entries.length}):`, ...entries.slice(0, LISTED).map((entry) => `  ${entry}`), ...more]
}

/** The first message of the agent that takes a session over: where the work stands and what to do. */
export function missionBrief(mission: Mission): string {
  const { work } = mission
  const why =
    mission.reason === 'usage-limit'
      ? `The previous agent, ${mission.from}, stopped because it hit its usage limit; you are ${mission.to}.`
      : `The user stopped the previous agent, ${mission.from}, and handed the work over to you, ${mission.to}.`
  const interrupted = mission.interrupted
    ? ['It was interrupted mid-work: an edit or a command of its last step may be half done, so check the uncommitted changes before building on them.']
    : []
  const base = work.base_sha.slice(0, 12)
  return [
    'You are continuing work in progress in this repository; another agent started it.',
    why,
    ...interrupted,
    `Goal: ${mission.goal?.trim() || 'not recorded; ask the user what the goal is before changing anything.'}`,
    `Branch: ${mission.branch} in ${mission.path}, at ${work.head_sha.slice(0, 12)}, started from ${base}.`,
    ...listed('Commits since the base', work.commits, 'none yet'),
    ...listed('Uncommitted files', work.uncommitted, 'none'),
    'Review the work with:',
    `  git log --stat ${base}..HEAD`,
    `  git diff ${base}..HEAD`,
    '  git status',
    '  git diff',
    'Do not start over: read what is there, then carry the work on from where it stopped.',
  ].join('\n')
}
