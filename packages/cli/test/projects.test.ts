import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync, realpathSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { cleanup, runCli, startDaemon, tempDir } from '@svc/test-kit'
import { runInTerminal } from './terminal.js'

let dir: string
let env: Record<string, string>

beforeAll(async () => {
  dir = realpathSync(await tempDir())
  await mkdir(join(dir, 'app', 'src'), { recursive: true })
  await mkdir(join(dir, 'plain'))
  execFileSync('git', ['init', '-q'], { cwd: join(dir, 'app') })
  env = { SERVICE_HOME: (await startDaemon({ home: join(dir, 'home') })).home }
})

afterAll(() => cleanup(dir))

async function json(...args: string[]): Promise<any> {
  const result = await runCli(args, env)
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout)
}

it('adds a project from a path relative to the current directory, at its git root, idempotently', async () => {
  const added = await runInTerminal(['projects', 'add', 'app/src'], env, { cwd: dir })
  expect(added.code).toBe(0)
  expect(added.out).toMatch(new RegExp(`^project [0-9a-f]{12} at ${dir}/app\\n$`))
  const again = await json('projects', 'add', join(dir, 'app'))
  expect(again).toEqual({
    ok: true,
    project: { id: expect.stringMatching(/^[0-9a-f]{12}$/), root: join(dir, 'app'), path_exists: true, config_trusted: true },
  })
  expect(await json('projects', 'list')).toEqual({ projects: [again.project] })
  expect((await runInTerminal(['projects', 'list'], env)).out).toMatch(new RegExp(`^ID\\s+ROOT\\s+EXISTS\\s+CONFIG\\n${again.project.id}\\s+${dir}/app\\s+yes\\s+ok\\n$`))

  const notRepo = await runCli(['projects', 'add', join(dir, 'plain')], env)
  expect(notRepo.code).toBe(1)
  expect(notRepo.stderr).toMatch(/^svc: .*plain/)
})

it('browses directories, marking git checkouts', async () => {
  const listing = await runInTerminal(['--json', 'projects', 'browse', '.'], env, { cwd: dir })
  const parsed = JSON.parse(listing.out)
  expect(parsed).toMatchObject({ path: dir, is_repo: false, truncated: false })
  expect(parsed.entries).toEqual([
    { name: 'app', path: join(dir, 'app'), is_repo: true },
    { name: 'home', path: join(dir, 'home'), is_repo: false },
    { name: 'plain', path: join(dir, 'plain'), is_repo: false },
  ])
  const table = (await runInTerminal(['projects', 'browse', dir], env)).out
  expect(table).toMatch(/^app\/\s+git\s+\S+\/app$/m)
  expect(table).toMatch(/^plain\/\s+\S+\/plain$/m)
  expect((await runInTerminal(['projects', 'browse', join(dir, 'plain')], env)).out).toContain('no subdirectories\n')

  const missing = await runCli(['projects', 'browse', join(dir, 'missing')], env)
  expect(missing.code).toBe(1)
  expect(missing.stderr).toContain(`cannot list ${join(dir, 'missing')}`)
})

it('removes a project by path or by id, leaving the repository alone', async () => {
  expect(await runInTerminal(['projects', 'remove', 'app'], env, { cwd: dir })).toEqual({ code: 0, out: 'removed project app\n' })
  expect((await runInTerminal(['projects', 'list'], env)).out).toBe('no projects\n')
  const { project } = await json('projects', 'add', join(dir, 'app'))
  expect(await json('projects', 'remove', '--repo-id', project.id)).toEqual({ ok: true })
  expect(await json('projects', 'list')).toEqual({ projects: [] })
  expect(execFileSync('git', ['rev-parse', '--git-dir'], { cwd: join(dir, 'app'), encoding: 'utf8' }).trim()).toBe('.git')

  const unknown = await runCli(['projects', 'remove', '--repo-id', project.id], env)
  expect(unknown.code).toBe(1)
  expect(unknown.stderr).toContain(`no project ${project.id}`)
})

it('edits a repository config with --repo, which needs `svc projects trust` before sessions use its commands', async () => {
  const app = join(dir, 'app')
  const file = join(app, '.svc', 'config.json')
  const set = await runInTerminal(['config', 'set', '--repo', join(app, 'src'), 'program_overrides.claude', 'claude --model opus'], env)
  expect(set.code, set.out).toBe(0)
  expect(set.out).toContain(`program_overrides = {"claude":"claude --model opus"} (in ${file})\n`)
  expect(set.out).toContain('warning: sessions of this repository are refused until it is trusted')
  expect(set.out).toContain(`svc projects trust ${app}`)
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ program_overrides: { claude: 'claude --model opus' } })

  const read = await runInTerminal(['config', 'get', '--repo', 'app', 'program_overrides.claude'], env, { cwd: dir })
  expect(read).toEqual({ code: 0, out: 'claude --model opus\n' })
  const listed = await json('config', 'get', '--repo', app)
  expect(listed).toMatchObject({ repo_file: file, repo_trusted: false })
  expect(listed.entries.find((entry: { key: string }) => entry.key === 'program_overrides')).toMatchObject({ source: 'repo' })
  // Without --repo: the global value, and repository-only keys marked as such.
  expect(await json('config', 'get', 'program_overrides.claude')).toEqual({ key: 'program_overrides.claude', value: '' })
  expect((await runInTerminal(['config', 'get'], env)).out).toMatch(/^backend\s+local\s+repo only\s+local\s/m)

  const global = await runCli(['config', 'set', 'backend', 'hook'], env)
  expect(global.code).toBe(1)
  expect(global.stderr).toContain('backend is a repository setting: use --repo PATH')
  const scoped = await runCli(['config', 'set', '--repo', app, 'session_env_passthrough', 'HOME'], env)
  expect(scoped.code).toBe(1)
  expect(scoped.stderr).toContain('session_env_passthrough: global setting, cannot be set per repository')

  await json('projects', 'add', app)
  expect((await runInTerminal(['projects', 'list'], env)).out).toContain(`not trusted (svc projects trust ${app})`)
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex')
  expect(await runInTerminal(['projects', 'trust', 'app'], env, { cwd: dir })).toEqual({
    code: 0,
    out: `trusted the repository config of app (sha256 ${sha256})\n`,
  })
  expect((await json('projects', 'list')).projects[0].config_trusted).toBe(true)
  expect(await json('config', 'get', '--repo', app)).toMatchObject({ repo_trusted: true })

  const unset = await json('config', 'unset', '--repo', app, 'program_overrides.claude')
  expect(unset).toMatchObject({ ok: true, key: 'program_overrides', value: '{}', file })
  expect(unset.warnings).toBeUndefined()
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({})
  const nothing = await runCli(['projects', 'trust', join(dir, 'plain')], env)
  expect(nothing.code).toBe(1)
  expect(nothing.stderr).toContain('is not inside a git checkout')
})
