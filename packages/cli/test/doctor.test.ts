import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdir, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanup, runCli, tempDir, type TestDaemon } from '@svc/test-kit'
import * as kit from '@svc/test-kit'
import { runInTerminal } from './terminal.js'

// One daemon with one live session in a real repository; leftovers are planted beside
// it as a crash would leave them, then found and removed with the daemon up and down.
let dir: string
let repo: string
let daemon: TestDaemon
let env: Record<string, string>
let liveTmux: string

interface Report {
  ok: boolean
  checks: Array<{ name: string; ok: boolean; note?: boolean; detail: string; remedy?: string }>
  fixed?: Array<{ what: string; result: string; why?: string }>
}

async function doctor(...args: string[]): Promise<{ code: number | null; report: Report }> {
  const result = await runCli(['doctor', '--json', ...args], env)
  return { code: result.code, report: JSON.parse(result.stdout) as Report }
}

/** The failing checks as `name: detail` lines. */
const failing = (report: Report) => report.checks.filter((check) => !check.ok).map((check) => `${check.name}: ${check.detail}`)

/** A pid no process has: one that just exited. */
const deadPid = () => spawnSync('true').pid

const lock = () => `${daemon.paths.config}.lock`
const tempFile = () => join(daemon.paths.sessionRecords, `.x.json.${deadPid()}.0123abcd.tmp`)
const token = () => join(daemon.paths.remoteTokens, 'gone-session')
const sshDir = () => join(daemon.paths.remoteSsh, 'gone-session')
const hostDir = () => join(daemon.paths.sshHosts, 'gone-host')
const engineDir = () => join(daemon.paths.dockerSsh, 'me@gone-box-2222')
let planted: { temp: string }

beforeAll(async () => {
  dir = await tempDir()
  repo = await kit.makeRepo(dir)
  daemon = await kit.startSessionDaemon({ home: join(dir, 'svc') })
  // The test kit makes the home with the umask's mode; svc's own start makes it 0700.
  await chmod(daemon.home, 0o700)
  // A git identity of its own: the check must pass whatever the machine's global config holds.
  env = { SERVICE_HOME: daemon.home, GIT_AUTHOR_NAME: 'Doc', GIT_AUTHOR_EMAIL: 'doc@example.com' }
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'live' })
  liveTmux = instance.tabs[0]?.tmux_name as string

  const sha = kit.git(repo, 'rev-parse', 'HEAD').trim()
  kit.tmux(daemon.home, 'new-session', '-d', '-s', 'svc_deadbeef_ghost', 'sleep 600')
  kit.git(repo, 'worktree', 'add', '-q', '-b', 'agent/ghost', join(dir, 'repo-ghost'), sha)
  kit.git(repo, 'worktree', 'add', '-q', '-b', 'agent/dirty', join(dir, 'repo-dirty'), sha)
  await writeFile(join(dir, 'repo-dirty', 'unsaved.txt'), 'work in progress\n')
  // The user's own: a worktree elsewhere, and a branch with svc's prefix made from HEAD.
  kit.git(repo, 'worktree', 'add', '-q', '-b', 'feature', join(dir, 'mine'))
  kit.git(repo, 'branch', 'agent/by-hand')
  kit.git(repo, 'branch', 'agent/orphan', sha)
  await writeFile(lock(), '')
  const longAgo = new Date(Date.now() - 60_000)
  await utimes(lock(), longAgo, longAgo)
  planted = { temp: tempFile() }
  await writeFile(planted.temp, '{"half":')
  await mkdir(daemon.paths.remoteTokens, { recursive: true })
  await writeFile(token(), 'a-token\n')
  await mkdir(sshDir(), { recursive: true })
  await writeFile(join(sshDir(), 'known_hosts'), 'host ssh-ed25519 AAAA\n')
  await mkdir(hostDir(), { recursive: true })
  await writeFile(join(hostDir(), 'known_hosts'), 'host ssh-ed25519 AAAA\n')
  await mkdir(engineDir(), { recursive: true })
  await writeFile(join(engineDir(), 'known_hosts'), '[gone-box]:2222 ssh-ed25519 AAAA\n')
})

afterAll(async () => {
  await daemon.stop()
  await cleanup(dir)
})

describe('svc doctor', () => {
  it('names every planted leftover, and only those, and exits 1', async () => {
    const { code, report } = await doctor()
    expect(code).toBe(1)
    expect(report.ok).toBe(false)
    const failed = failing(report)
    expect(failed).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^leftover tmux session: svc_deadbeef_ghost: /),
        expect.stringContaining(`leftover worktree: ${join(dir, 'repo-ghost')} (branch agent/ghost)`),
        expect.stringMatching(new RegExp(`^leftover worktree: ${join(dir, 'repo-dirty')} .*it holds 1 uncommitted change$`)),
        expect.stringMatching(new RegExp(`^leftover branch: agent/orphan in ${repo}: `)),
        expect.stringMatching(new RegExp(`^leftover stale lock: ${lock()}: `)),
        expect.stringMatching(new RegExp(`^leftover temp file: ${planted.temp}: its writer \\(pid \\d+\\) is gone$`)),
        expect.stringMatching(new RegExp(`^leftover remote token: ${token()}: `)),
        expect.stringMatching(new RegExp(`^leftover ssh directory: ${sshDir()}: `)),
        expect.stringMatching(new RegExp(`^leftover ssh host directory: ${hostDir()}: `)),
        expect.stringMatching(new RegExp(`^leftover docker engine ssh directory: ${engineDir()}: `)),
      ]),
    )
    expect(failed).toHaveLength(10)
    // The live session's pieces and the user's own are named by nothing here.
    expect(failed.join('\n')).not.toMatch(new RegExp(`${liveTmux}|repo-live|agent/live|mine|feature|by-hand`))
    const names = report.checks.map((check) => check.name)
    expect(names).toEqual(expect.arrayContaining(['node', 'git', 'git identity', 'tmux', 'state directory', 'daemon', 'agent claude (default)', `project ${repo}`]))
    expect(report.checks.find((check) => check.name === 'daemon')?.detail).toMatch(/^running, pid \d+, .*phase ready/)
  })

  it('--fix removes them and nothing else, and keeps the worktree holding work, saying why', async () => {
    const { code, report } = await doctor('--fix')
    expect(code).toBe(1)
    const removed = (report.fixed ?? []).filter((entry) => entry.result === 'removed').map((entry) => entry.what)
    expect(removed.sort()).toEqual(
      [
        'tmux session svc_deadbeef_ghost',
        `worktree ${join(dir, 'repo-ghost')} (branch agent/ghost)`,
        `branch agent/orphan in ${repo}`,
        `stale lock ${lock()}`,
        `temp file ${planted.temp}`,
        `remote token ${token()}`,
        `ssh directory ${sshDir()}`,
        `ssh host directory ${hostDir()}`,
        `docker engine ssh directory ${engineDir()}`,
      ].sort(),
    )
    const kept = (report.fixed ?? []).filter((entry) => entry.result === 'kept')
    expect(kept).toEqual([{ what: `worktree ${join(dir, 'repo-dirty')} (branch agent/dirty)`, result: 'kept', why: expect.stringContaining('it holds 1 uncommitted change') }])
    expect(failing(report)).toEqual([expect.stringContaining('leftover worktree: ')])

    expect(kit.tmuxSessions(daemon.home)).toEqual([liveTmux])
    expect(kit.worktrees(repo).sort()).toEqual([repo, join(dir, 'mine'), join(dir, 'repo-dirty'), join(dir, 'repo-live')].sort())
    expect(kit.branches(repo)).toEqual(['agent/by-hand', 'agent/dirty', 'agent/live', 'feature', 'main'])
    for (const path of [lock(), planted.temp, token(), sshDir(), hostDir(), engineDir()]) expect(existsSync(path), path).toBe(false)
    expect(existsSync(join(dir, 'repo-dirty', 'unsaved.txt'))).toBe(true)
    expect((await kit.session(daemon, 'live')).liveness_name).toMatch(/running|ready/)
  })

  it('works with the daemon down, reading the records, and never starts it', async () => {
    await daemon.stop()
    kit.tmux(daemon.home, 'new-session', '-d', '-s', 'svc_deadbeef_again', 'sleep 600')
    await writeFile(daemon.paths.lock, `${deadPid()}\n`)
    await chmod(daemon.home, 0o755)

    const { out } = await runInTerminal(['doctor'], env)
    await chmod(daemon.home, 0o700)
    expect(out).toContain(`✗ state directory mode: ${daemon.home} is 755, open to other users\n    → chmod 700 ${daemon.home}\n`)
    expect(out).toMatch(/^⚠ daemon: not running \(no socket\)$/m)
    expect(out).toMatch(/^✗ leftover tmux session: svc_deadbeef_again: .*\n {4}→ svc doctor --fix removes it$/m)
    expect(out).toMatch(new RegExp(`^✗ leftover stale lock: ${daemon.paths.lock}: names pid \\d+, which is gone$`, 'm'))
    expect(out).not.toContain(liveTmux)

    const { code, report } = await doctor('--fix')
    expect(code).toBe(1) // the worktree holding work is still kept
    expect((report.fixed ?? []).filter((entry) => entry.result === 'removed').map((entry) => entry.what)).toEqual([
      'tmux session svc_deadbeef_again',
      `stale lock ${daemon.paths.lock}`,
    ])
    expect(kit.tmuxSessions(daemon.home)).toEqual([liveTmux])
    expect(existsSync(daemon.paths.socket)).toBe(false)
    expect(existsSync(daemon.paths.pid)).toBe(false)
  })
})
