// The daemon killed with SIGKILL in the middle of acknowledged writes, again and again:
// after every restart each acknowledged write must be there, the first task write must
// not wait on a lock the killed daemon left, and no temp file may stay. Shared by the
// reliability test (a few cycles) and `pnpm bench` (100).
import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { createClient, servicePaths } from '@svc/protocol'
import { generator } from './fuzz-kit.mjs'

const DAEMON_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url))
const exec = promisify(execFile)

/** Asynchronous, so making a repository never holds up the writers or the kill. */
async function makeRepo(root) {
  await exec('git', ['init', '-q', '-b', 'main', root])
  await exec('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init'], { cwd: root })
}

/** Starts the daemon on `home` (with `env` beside the bench's) and resolves once it is ready, with how long that took. */
export async function startOn(home, env = {}) {
  const began = performance.now()
  const paths = servicePaths(home)
  // Its own directory as working directory: nothing relative can reach a real repository.
  const child = spawn(process.execPath, [DAEMON_MAIN], { cwd: home, env: { ...process.env, ...env, SERVICE_HOME: home }, stdio: 'ignore' })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const client = createClient({ socketPath: paths.socket })
  for (;;) {
    if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}`)
    const health = existsSync(paths.socket) ? await client.call('Health').catch(() => undefined) : undefined
    if (health?.phase === 'ready') break
    await sleep(10)
  }
  return {
    client,
    startMs: performance.now() - began,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
  }
}

/**
 * Files a daemon's durable writes and locks leave when interrupted, anywhere under the
 * home: temp files and lock files (but daemon.lock, which a running daemon holds for its life).
 */
async function leftovers(home) {
  const names = await readdir(home, { recursive: true })
  return names
    .filter((name) => name.endsWith('.tmp') || (name.endsWith('.lock') && name !== 'daemon.lock'))
    .map((name) => join(home, name))
}

/** Every acknowledged write that is missing from what the daemon now serves. */
async function missing(client, acked) {
  const [tasks, projects, config] = await Promise.all([client.call('ListTasks'), client.call('ListProjects'), client.call('GetConfig')])
  const names = new Set(tasks.tasks.map((task) => task.name))
  const roots = new Set(projects.projects.map((project) => project.root))
  const overrides = JSON.parse(config.entries.find((entry) => entry.key === 'program_overrides').value)
  return [
    ...[...acked.tasks].filter((name) => !names.has(name)).map((name) => `task ${name}`),
    ...[...acked.projects].filter((root) => !roots.has(root)).map((root) => `project ${root}`),
    ...[...acked.config].filter(([key, value]) => overrides[key] !== value).map(([key]) => `config ${key}`),
  ]
}

/**
 * `cycles` kills under `dir`; `writers` clients per kind of write. Resolves with the
 * figures, `lost` listing every acknowledged write that did not survive.
 */
export async function killLoop({ dir, cycles, seed = 1, writers = 2 }) {
  const random = generator(seed)
  const home = join(dir, 'svc')
  await mkdir(home, { recursive: true })
  await writeFile(join(home, 'config.json'), JSON.stringify({ network: { listen_addr: '' } }))
  const project = join(dir, 'project')
  await makeRepo(project)
  const acked = { tasks: new Set(), projects: new Set(), config: new Map() }
  const figures = { cycles, acked: 0, attempted: 0, lost: [], firstWriteMs: [], startMs: [], leftByKills: 0, leftAfterStart: [] }
  let serial = 0

  const task = async (client) => {
    const name = `k${serial++}`
    await client.call('AddTask', { task: { name, prompt: 'p', cron_expr: '0 0 1 1 *', project_path: project } })
    acked.tasks.add(name)
  }
  const register = async (client) => {
    const root = join(dir, `repo${serial++}`)
    await makeRepo(root)
    await client.call('RegisterProject', { path: root })
    acked.projects.add(root)
  }
  const configure = async (client) => {
    const key = `k${serial++}`
    await client.call('SetConfigValue', { key: `program_overrides.${key}`, value: `cmd ${key}` })
    acked.config.set(key, `cmd ${key}`)
  }

  for (let cycle = 0; cycle <= cycles; cycle++) {
    const daemon = await startOn(home)
    figures.startMs.push(daemon.startMs)
    figures.leftAfterStart.push(...(await leftovers(home)))
    // The first task write after a kill: a left lock would hold it until the lock is 10 s old.
    const began = performance.now()
    await task(daemon.client)
    figures.firstWriteMs.push(performance.now() - began)
    figures.lost.push(...(await missing(daemon.client, acked)).map((what) => `cycle ${cycle}: ${what}`))
    if (cycle === cycles) {
      await daemon.kill('SIGTERM')
      break
    }
    let killed = false
    const loop = async (write) => {
      while (!killed) {
        figures.attempted++
        await write(daemon.client).catch(() => {})
      }
    }
    const running = [task, register, configure].flatMap((write) => Array.from({ length: writers }, () => loop(write)))
    await sleep(100 + random.int(700))
    killed = true
    await daemon.kill('SIGKILL')
    await Promise.all(running)
    figures.leftByKills += (await leftovers(home)).length
  }
  figures.acked = acked.tasks.size + acked.projects.size + acked.config.size
  await new Promise((resolve) => execFile('tmux', ['-S', servicePaths(home).tmuxSocket, 'kill-server'], () => resolve()))
  return figures
}
