import { execFileSync } from 'node:child_process'
import { realpathSync } from 'node:fs'
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
