import { execFile } from 'node:child_process'
import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SVC_VERSION } from '@svc/protocol'
import { cleanup, FAKE_AGENT, makeRepo, tempDir } from '@svc/test-kit'
import { packSvc } from '../../../scripts/pack-svc.mjs'

// The portable svc as a user gets it: packed once, unpacked outside the checkout, run from
// there with only node's directory and /usr/bin:/bin on PATH and a home of its own.
const BUDGET = 15 * 1024 * 1024
const PATH = `${dirname(process.execPath)}:/usr/bin:/bin`

let dir: string
let home: string
let repo: string
let tarball: { path: string; bytes: number }
let launcher: string

type Run = { code: number; stdout: string; stderr: string }

/** A program run with nothing of the test's environment: PATH as given, HOME and SERVICE_HOME the temp home. */
function run(file: string, args: string[], { cwd = dir, path = PATH } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: { PATH: path, HOME: home, SERVICE_HOME: home } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr })
    })
  })
}

/** The unpacked bin/svc; it must succeed, and its stdout is JSON. */
async function svc(args: string[], cwd = dir): Promise<any> {
  const result = await run(launcher, [...args, '--json'], { cwd })
  expect(result.code, `svc ${args.join(' ')}: ${result.stderr}`).toBe(0)
  return JSON.parse(result.stdout)
}

beforeAll(async () => {
  dir = await tempDir()
  home = await tempDir()
  tarball = await packSvc({ outDir: join(dir, 'out') })
  console.log(`portable svc: ${basename(tarball.path)}, ${(tarball.bytes / 1024 / 1024).toFixed(2)} MB compressed`)
  await promisify(execFile)('tar', ['-xzf', tarball.path, '-C', dir])
  launcher = join(dir, basename(tarball.path, '.tar.gz'), 'bin/svc')
  // The agent runs from the temp directory too: nothing of the checkout is used after the pack.
  const agent = join(dir, 'fake-agent.mjs')
  await copyFile(FAKE_AGENT, agent)
  const config = { network: { listen_addr: '127.0.0.1:0' }, daemon_poll_interval: '200ms', program_overrides: { claude: `node ${agent}` }, branch_prefix: 'agent/' }
  await writeFile(join(home, 'config.json'), JSON.stringify(config))
  repo = await makeRepo(dir)
}, 180_000)

afterAll(async () => {
  // Stops a daemon a failed step left and the tmux server on $SERVICE_HOME/tmux.sock, then removes both.
  await cleanup(home, dir)
})

describe('the portable svc (pnpm pack:svc)', () => {
  it(`is one tarball named for this version and platform, under the ${BUDGET / 1024 / 1024} MB budget`, () => {
    expect(basename(tarball.path)).toBe(`svc-${SVC_VERSION}-${process.platform}-${process.arch}.tar.gz`)
    expect(tarball.bytes).toBeLessThan(BUDGET)
  })

  it('prints its version with the node on PATH', async () => {
    expect(await run(launcher, ['--version'])).toMatchObject({ code: 0, stdout: `${SVC_VERSION}\n` })
  })

  it('refuses clearly when node is missing or older than 20', async () => {
    const missing = await run(launcher, ['--version'], { path: join(dir, 'nowhere') })
    expect(missing.code).toBe(127)
    expect(missing.stderr).toContain('node is not on PATH; svc needs Node.js 20 or newer')
    const old = join(dir, 'old-node')
    await mkdir(old)
    await writeFile(join(old, 'node'), '#!/bin/sh\ncase $1 in -p) echo 18 ;; *) echo v18.20.0 ;; esac\n')
    await chmod(join(old, 'node'), 0o755)
    const refused = await run(launcher, ['--version'], { path: `${old}:${PATH}` })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('node v18.20.0 is too old; svc needs Node.js 20 or newer')
  })

  it('starts its bundled daemon, which answers ready', async () => {
    await svc(['daemon', 'start'])
    const health = await svc(['health'])
    expect(health).toMatchObject({ ok: true, version: SVC_VERSION, phase: 'ready' })
    // The daemon the CLI started is the one in the tarball, not the checkout's.
    const command = await run('ps', ['-o', 'args=', '-p', String(health.pid)])
    expect(command.stdout.trim()).toBe(`${process.execPath} ${join(dirname(dirname(launcher)), 'lib/daemon.mjs')}`)
  })

  it('creates a session in a repository with an agent, and lists it', async () => {
    const created = await svc(['sessions', 'create', 'fix-parser', '--prompt', 'parse trailing commas'], repo)
    expect(created.instance).toMatchObject({ title: 'fix-parser', last_prompt_delivery_status: 'delivered' })
    const sessions = await svc(['sessions', 'list'])
    expect(sessions.instances.map((session: any) => [session.title, session.branch, session.repo_path])).toEqual([
      ['fix-parser', 'agent/fix-parser', repo],
    ])
  })

  it('serves the built web UI at / on its TCP listener', async () => {
    const { url } = await svc(['web'])
    const login = new URL(url as string)
    const token = login.searchParams.get('token') ?? ''
    const page = await fetch(new URL('/', login), { headers: { authorization: `Bearer ${token}` } })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('<title>svc</title>')
    expect(html).toMatch(/src="\/assets\/index-[\w-]+\.js"/)
  })

  it('installs with npm install -g from the tarball', async () => {
    const prefix = join(dir, 'npm')
    const npm = await run('npm', ['install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, tarball.path])
    expect(npm.code, npm.stderr).toBe(0)
    expect(await run(join(prefix, 'bin/svc'), ['--version'])).toMatchObject({ code: 0, stdout: `${SVC_VERSION}\n` })
  })

  it('kills the session and stops the daemon', async () => {
    await svc(['sessions', 'kill', 'fix-parser'])
    await svc(['daemon', 'stop'])
    const status = await run(launcher, ['daemon', 'status', '--json'])
    expect(status.code).toBe(3)
    expect(JSON.parse(status.stdout)).toMatchObject({ running: false })
  })
})
