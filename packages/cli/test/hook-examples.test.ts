import { execFile } from 'node:child_process'
import { readdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { alive, git, makeRepo, tempDir, waitFor } from '@svc/test-kit'

// The worked launch_cmd/delete_cmd examples. No cluster or engine runs here: kubectl and
// docker are stand-ins that run the workspace's start-up script on this machine (with a
// stand-in svc), so the scripts' arguments, the clone and branch, and their one line of
// stdout are real.
const examples = fileURLToPath(new URL('../../../examples/hooks/', import.meta.url))
const standIns = fileURLToPath(new URL('./fixtures/hook-tools/', import.meta.url))
const TOKEN = 'tok"en\\with/odd é'

interface Run {
  code: number | string
  stdout: string
  stderr: string
}

function run(file: string, args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...process.env, ...env }, cwd }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code ?? 'signal') : 0, stdout, stderr }),
    )
  })
}

it('shellcheck finds nothing in any example hook', async () => {
  const scripts = (await readdir(examples, { recursive: true })).filter((file) => file.endsWith('.sh'))
  expect(scripts.length).toBeGreaterThanOrEqual(5)
  // CI installs shellcheck (.ci/run): missing, this fails rather than skips.
  const checked = await run('shellcheck', ['--external-sources', ...scripts], {}, examples)
  expect(checked.code, checked.code === 'ENOENT' ? 'shellcheck is not installed' : checked.stdout + checked.stderr).toBe(0)
  expect(checked.stdout + checked.stderr).toBe('')
})

const backends: Array<{ tool: string; dir: string; port: string; env: Record<string, string> }> = [
  { tool: 'kubectl', dir: 'kubernetes', port: '43121', env: { SVC_HOOK_NAMESPACE: 'agents' } },
  { tool: 'docker', dir: 'docker', port: '49153', env: {} },
]

describe.each(backends)('examples/hooks/$dir', ({ tool, dir, port, env: backendEnv }) => {
  let state: string
  let origin: string
  let env: Record<string, string>
  const launch = (...args: string[]) => run(join(examples, dir, 'launch.sh'), args, env)
  const remove = (name: string) => run(join(examples, dir, 'delete.sh'), ['--name', name], env)
  const calls = async () =>
    (await readFile(join(state, 'calls.jsonl'), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { tool: string; args: string[] })
  const agentServer = async (name: string) => JSON.parse(await readFile(join(state, `svc-${name}`, 'agent-server.json'), 'utf8'))

  beforeEach(async () => {
    state = await tempDir()
    origin = await makeRepo(state, 'origin')
    git(origin, 'branch', 'svc/existing')
    env = {
      ...backendEnv,
      PATH: `${standIns}:${process.env.PATH}`,
      HOOK_STANDIN_STATE: state,
      HOOK_STANDIN_TOKEN: TOKEN,
      HOOK_STANDIN_LOCAL_PORT: port,
      HOOK_STANDIN_HOST_PORT: port,
      SVC_HOOK_STATE_DIR: join(state, 'hooks'),
    }
  })

  afterEach(async () => {
    for (const entry of await readdir(state)) if (entry.startsWith('svc-')) await remove(entry.slice(4))
    await rm(state, { recursive: true, force: true })
  })

  it('launches: one JSON line {url, token} on stdout, the workspace on a new branch, then deletes twice', async () => {
    const launched = await launch('--name', 'fix-login', '--title', 'Fix login', '--repo', origin, '--branch', 'svc/fix-login')
    expect(launched.code, launched.stderr).toBe(0)
    expect(launched.stdout.endsWith('\n')).toBe(true)
    expect(launched.stdout.trimEnd().split('\n')).toHaveLength(1)
    expect(JSON.parse(launched.stdout)).toEqual({ url: `http://127.0.0.1:${port}`, token: TOKEN })

    const started = await agentServer('fix-login')
    expect(started.args).toEqual(['agent-server', '--workspace', join(state, 'svc-fix-login', 'workspace'), '--listen', '0.0.0.0:7420'])
    expect(started.branch).toBe('svc/fix-login')
    expect(started.upstream).toBeNull()
    const made = (await calls()).find((call) => call.args.includes('run'))!
    expect(made.tool).toBe(tool)
    expect(made.args).toContain('svc-fix-login')
    if (tool === 'kubectl') {
      expect(made.args).toEqual(expect.arrayContaining([`SVC_REPO=${origin}`, 'SVC_BRANCH=svc/fix-login', 'SVC_RESTORE=0']))
      expect((await calls()).every((call) => call.args[0] === '--namespace' && call.args[1] === 'agents')).toBe(true)
    }

    const forward = join(state, 'hooks', 'fix-login.forward.pid')
    const forwardPid = tool === 'kubectl' ? Number(await readFile(forward, 'utf8')) : undefined
    if (forwardPid) expect(alive(forwardPid)).toBe(true)

    const first = await remove('fix-login')
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe('')
    expect(await readdir(state)).not.toContain('svc-fix-login')
    if (forwardPid) await waitFor(() => !alive(forwardPid) || undefined)
    const again = await remove('fix-login')
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toBe('')
  })

  it('makes a new branch from --base, not tracking it', async () => {
    git(origin, 'checkout', '-q', '-b', 'release')
    git(origin, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'release line')
    git(origin, 'checkout', '-q', 'main')
    const launched = await launch('--name', 'from-base', '--title', 'From base', '--repo', origin, '--branch', 'svc/from-base', '--base', 'release')
    expect(launched.code, launched.stderr).toBe(0)
    expect(await agentServer('from-base')).toMatchObject({ branch: 'svc/from-base', head: git(origin, 'rev-parse', 'release').trim(), upstream: null })
  })

  it('restores: the branch from origin, tracking it', async () => {
    const launched = await launch('--restore', '--name', 'existing', '--title', 'Existing', '--repo', origin, '--branch', 'svc/existing')
    expect(launched.code, launched.stderr).toBe(0)
    expect(JSON.parse(launched.stdout)).toEqual({ url: `http://127.0.0.1:${port}`, token: TOKEN })
    expect(await agentServer('existing')).toMatchObject({ branch: 'svc/existing', upstream: 'origin/svc/existing' })
  })

  it('fails a restore whose branch is not on origin, saying why, with nothing on stdout', async () => {
    const started = Date.now()
    const launched = await launch('--name', 'gone', '--title', 'Gone', '--repo', origin, '--branch', 'svc/gone', '--restore')
    expect(launched.code).toBe(1)
    expect(launched.stdout).toBe('')
    expect(launched.stderr).toContain('branch svc/gone is not on origin: nothing to restore')
    expect(launched.stderr).toContain('the workspace stopped before svc agent-server was ready')
    // Told by the stopped workspace, not by the 110 s limit.
    expect(Date.now() - started).toBeLessThan(20_000)
  })

  it.each([
    [['--title', 'T', '--repo', 'r', '--branch', 'b'], "--name must be a slug ([a-z0-9-]), got ''"],
    [['--name', 'Not A Slug', '--repo', 'r', '--branch', 'b'], "--name must be a slug ([a-z0-9-]), got 'Not A Slug'"],
    [['--name', 'n', '--branch', 'b'], '--repo is required'],
    [['--name', 'n', '--repo', 'r', '--branch'], '--branch needs a value'],
    [['--name', 'n', '--repo', 'r', '--branch', 'b', '--force'], 'unknown argument: --force'],
  ])('refuses %j before running anything', async (args, message) => {
    const launched = await launch(...args)
    expect(launched.code).toBe(1)
    expect(launched.stdout).toBe('')
    expect(launched.stderr).toBe(`launch.sh: ${message}\n`)
    expect(await calls()).toEqual([])
  })

  it('takes --option=value too', async () => {
    const launched = await launch('--name=eq', '--title=Eq form', `--repo=${origin}`, '--branch=svc/eq')
    expect(launched.code, launched.stderr).toBe(0)
    expect(await agentServer('eq')).toMatchObject({ branch: 'svc/eq' })
  })
})
