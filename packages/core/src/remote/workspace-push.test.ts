import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { InvalidRequest } from '../errors.js'
import { pushWorkspace } from './workspace-push.js'

let dir: string
let origin: string
let workspace: string
/** A git that knows no one: no global or system config, no identity in the environment. */
let env: NodeJS.ProcessEnv

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim()

beforeEach(async () => {
  dir = await mkdtemp('/tmp/svc-')
  env = { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', EMAIL: '' }
  origin = join(dir, 'o.git')
  workspace = join(dir, 'ws')
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin], { env })
  execFileSync('git', ['clone', '-q', origin, workspace], { env })
  git(workspace, '-c', 'user.name=a', '-c', 'user.email=a@example.com', 'commit', '-q', '--allow-empty', '-m', 'first')
  git(workspace, 'push', '-q', 'origin', 'HEAD:refs/heads/main')
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('pushWorkspace', () => {
  it('pushes HEAD without a snapshot when nothing is uncommitted', async () => {
    const answer = await pushWorkspace(workspace, 'work', env)
    expect(answer).toEqual({ origin, branch: 'work', head: git(workspace, 'rev-parse', 'HEAD') })
    expect(git(origin, 'rev-parse', 'work')).toBe(answer.head)
  })

  it('commits uncommitted work as the snapshot, as svc when the remote knows no identity', async () => {
    await writeFile(join(workspace, 'new.txt'), 'x\n')
    const answer = await pushWorkspace(workspace, 'main', env)
    expect(answer.snapshot).toBe(answer.head)
    expect(git(origin, 'log', '-1', '--format=%an <%ae>|%s', 'main')).toBe('svc <svc@localhost>|svc: snapshot before archive')
    expect(git(workspace, 'status', '--porcelain')).toBe('')
  })

  it('with unsavedOnly, pushes nothing when origin has HEAD and nothing is uncommitted, and pushes a commit origin lacks', async () => {
    const head = git(workspace, 'rev-parse', 'HEAD')
    expect(await pushWorkspace(workspace, 'work', env, true)).toEqual({ origin, branch: 'work', head, already_on_origin: true })
    expect(git(origin, 'for-each-ref', '--format=%(refname:short)', 'refs/heads')).toBe('main')
    git(workspace, '-c', 'user.name=a', '-c', 'user.email=a@example.com', 'commit', '-q', '--allow-empty', '-m', 'second')
    const pushed = await pushWorkspace(workspace, 'work', env, true)
    expect(pushed.already_on_origin).toBeUndefined()
    expect(git(origin, 'rev-parse', 'work')).toBe(pushed.head)
  })

  it('refuses a branch name git would not take, pushing nothing', async () => {
    await expect(pushWorkspace(workspace, 'a..b', env)).rejects.toBeInstanceOf(InvalidRequest)
    await expect(pushWorkspace(workspace, '', env)).rejects.toThrow('branch is required')
    expect(git(origin, 'for-each-ref', '--format=%(refname:short)', 'refs/heads')).toBe('main')
  })

  it('says why origin refused, keeping the snapshot for a retry', async () => {
    // Origin moved on: the workspace's push is not a fast-forward.
    const other = join(dir, 'other')
    execFileSync('git', ['clone', '-q', origin, other], { env })
    git(other, '-c', 'user.name=b', '-c', 'user.email=b@example.com', 'commit', '-q', '--allow-empty', '-m', 'elsewhere')
    git(other, 'push', '-q', 'origin', 'main')
    await writeFile(join(workspace, 'mine.txt'), 'y\n')
    await expect(pushWorkspace(workspace, 'main', env)).rejects.toThrow(/the push of [0-9a-f]{12} to branch "main" of .*o\.git failed: git push: .*rejected/s)
    expect(git(workspace, 'log', '-1', '--format=%s')).toBe('svc: snapshot before archive')
    expect(git(origin, 'log', '-1', '--format=%s', 'main')).toBe('elsewhere')
  })
})
