import { homedir } from 'node:os'
import { fail, note, pass, type Check } from './check.js'
import { atLeast, output, versionIn } from './run.js'

const NODE_MAJOR = 20
const TMUX_MIN = [3, 2] as const

/** The versions a bug report and the checks below name; undefined: not installed. */
export interface Versions {
  node: string
  git?: string
  tmux?: string
}

export async function versions(): Promise<Versions> {
  const [git, tmux] = await Promise.all([output('git', ['--version']), output('tmux', ['-V'])])
  return { node: process.versions.node, git: versionIn(git), tmux: versionIn(tmux) }
}

function nodeCheck(version: string): Check {
  const major = Number.parseInt(version, 10)
  return major >= NODE_MAJOR
    ? pass('node', version)
    : fail('node', `${version} is too old`, `install Node.js ${NODE_MAJOR} or newer (https://nodejs.org)`)
}

function tmuxCheck(version: string | undefined): Check {
  const wanted = `${TMUX_MIN[0]}.${TMUX_MIN[1]}`
  if (version === undefined) return fail('tmux', 'not found on PATH', `install tmux ${wanted} or newer (apt install tmux, brew install tmux)`)
  return atLeast(version, ...TMUX_MIN) ? pass('tmux', version) : fail('tmux', `${version} is too old`, `install tmux ${wanted} or newer`)
}

/**
 * The identity commits in a session's worktree get: the git identity variables pass into
 * panes, else git's global config (sessions run with this HOME).
 */
export async function gitIdentity(): Promise<{ name?: string; email?: string }> {
  const env = process.env
  const lookup = (key: string) => output('git', ['config', '--global', '--get', key], { cwd: homedir() })
  const [name, email] = await Promise.all([
    env.GIT_AUTHOR_NAME || env.GIT_COMMITTER_NAME || lookup('user.name'),
    env.GIT_AUTHOR_EMAIL || env.GIT_COMMITTER_EMAIL || lookup('user.email'),
  ])
  return { ...(name ? { name } : {}), ...(email ? { email } : {}) }
}

async function identityCheck(): Promise<Check> {
  const { name, email } = await gitIdentity()
  const missing = [name ? undefined : 'user.name', email ? undefined : 'user.email'].filter(Boolean)
  if (missing.length === 0) return pass('git identity', `${name} <${email}>`)
  return fail(
    'git identity',
    `${missing.join(' and ')} not set: agents cannot commit in their worktrees`,
    missing.map((key) => `git config --global ${key} "…"`).join('; '),
  )
}

export async function prerequisiteChecks(found: Versions): Promise<Check[]> {
  const git = found.git
    ? pass('git', found.git)
    : fail('git', 'not found on PATH', 'install git (apt install git, brew install git)')
  const identity = found.git ? await identityCheck() : note('git identity', 'not checked without git')
  return [nodeCheck(found.node), git, identity, tmuxCheck(found.tmux)]
}
