// Hook sessions, their agent servers on this machine's loopback (only addresses the bench
// made): CreateSession of a hook session against the same launch script run by hand plus a
// direct in-place CreateSession on the agent server it printed; and Snapshot of 100 hook
// sessions over 2 agent servers against 100 local sessions on the same home daemon.
import { execFile } from 'node:child_process'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { createClient, servicePaths } from '@svc/protocol'
import { alternateRuns, elapsedMs, fmt, IDLE, latencies, median, onInterrupt, percentile, report, spawnServer, startDaemon, stopChild, withTempDir } from './harness.mjs'
import { makeRepo } from './sessions.mjs'

const CLI_MAIN = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url))
/** The tests' launch_cmd and delete_cmd: a clone and a real `svc agent-server` per slug, stopped by delete. */
const LAUNCH = fileURLToPath(new URL('../../test-kit/fixtures/hooks/launch.mjs', import.meta.url))
const DELETE = fileURLToPath(new URL('../../test-kit/fixtures/hooks/delete.mjs', import.meta.url))
const FAKE_AGENT = fileURLToPath(new URL('../../test-kit/fixtures/fake-agent.mjs', import.meta.url))
const FLEET_LAUNCH = fileURLToPath(new URL('./hook-launch.mjs', import.meta.url))
const exec = promisify(execFile)

/** Measured creations, each alternating with one floor run; each starts an agent server. */
const CREATES = 6
const FLEET = 100
const REMOTES = 2
const SNAPSHOTS = 500

/** A repository with a bare origin (launch_cmd clones the origin), and `.svc/config.json` naming the hooks. */
export async function hookRepo(dir, hooks) {
  const origin = join(dir, 'o.git')
  await exec('git', ['init', '-q', '--bare', '-b', 'main', origin])
  const repo = await makeRepo(join(dir, 'repo'))
  await exec('git', ['remote', 'add', 'origin', origin], { cwd: repo })
  await exec('git', ['push', '-q', 'origin', 'main'], { cwd: repo })
  await mkdir(join(repo, '.svc'))
  await writeFile(join(repo, '.svc', 'config.json'), JSON.stringify({ remote_hooks: hooks }))
  return { repo, origin }
}

/** Runs `script` with `args` on the server CPU, as the daemon runs a hook; resolves with its stdout. */
function runHook(script, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawnServer([script, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (err += chunk))
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited with ${code}: ${err}`))))
  })
}

async function createVsFloor() {
  await withTempDir(async (dir) => {
    const state = join(dir, 'r')
    await mkdir(state)
    const launchArgs = ['--state', state, '--svc', CLI_MAIN, '--agent', FAKE_AGENT, '--listen', '127.0.0.1:0']
    const { repo, origin } = await hookRepo(dir, {
      launch_cmd: [process.execPath, LAUNCH, ...launchArgs].join(' '),
      delete_cmd: [process.execPath, DELETE, '--state', state].join(' '),
    })
    const daemon = await startDaemon()
    const deleteByHand = (slug) => runHook(DELETE, ['--state', state, '--name', slug], repo)
    try {
      await daemon.client.call('TrustProject', { path: repo })
      const measure = {
        async svc(i) {
          const start = process.hrtime.bigint()
          const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: `c-${i}`, backend: 'hook', program: IDLE })
          const ms = elapsedMs(start)
          await daemon.client.call('KillSession', { id: instance.id })
          return ms
        },
        async floor(i) {
          const slug = `floor-${i}`
          const start = process.hrtime.bigint()
          const printed = await runHook(LAUNCH, [...launchArgs, '--name', slug, '--title', slug, '--repo', origin, '--branch', 'main'], repo)
          const remote = createClient(JSON.parse(printed))
          await remote.call('CreateSession', { repo_path: join(state, slug, 'ws'), title: slug, program: IDLE, in_place: true })
          const ms = elapsedMs(start)
          await deleteByHand(slug)
          return ms
        },
      }
      const times = await alternateRuns(measure, CREATES)
      report(`CreateSession of a hook session (launch_cmd clones and starts an agent server on loopback), ${CREATES} runs alternating with the floor`, [
        ['floor: the launch script by hand + CreateSession in place on its agent server', fmt.medianP90(times.floor)],
        ['svc CreateSession, backend hook', fmt.medianP90(times.svc)],
        ['ratio of medians', (median(times.svc) / median(times.floor)).toFixed(2)],
      ])
    } finally {
      await daemon.stop()
      // A run cut short leaves agent servers: delete_cmd stops whichever is left.
      for (const entry of await readdir(state, { withFileTypes: true })) {
        if (entry.isDirectory()) await deleteByHand(entry.name).catch(() => undefined)
      }
    }
  })
}

/** `svc agent-server` on loopback serving a clone of `origin`, on the server CPU; resolves once it printed its endpoint. */
async function startAgentServer(dir, origin) {
  const home = join(dir, 'h')
  const workspace = join(dir, 'ws')
  await mkdir(home, { recursive: true })
  await exec('git', ['clone', '-q', origin, workspace])
  const child = spawnServer([CLI_MAIN, 'agent-server', '--home', home, '--workspace', workspace, '--listen', '127.0.0.1:0'], {
    env: { ...process.env, SERVICE_HOME: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const stop = onInterrupt(async () => {
    await stopChild(child)
    await new Promise((resolve) => execFile('tmux', ['-S', servicePaths(home).tmuxSocket, 'kill-server'], resolve))
  })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
  while (!out.includes('\n')) {
    if (child.exitCode !== null) throw new Error(`agent-server exited with ${child.exitCode}`)
    await sleep(20)
  }
  const { url, token } = JSON.parse(out)
  return { url, token, stop }
}

async function snapshotFleet() {
  await withTempDir(async (dir) => {
    const endpointsFile = join(dir, 'endpoints.json')
    const { repo, origin } = await hookRepo(join(dir, 'hook'), { launch_cmd: `${process.execPath} ${FLEET_LAUNCH} --endpoints ${endpointsFile}`, delete_cmd: '/bin/true' })
    const local = await makeRepo(join(dir, 'local'))
    const remotes = []
    const daemon = await startDaemon()
    try {
      for (let i = 0; i < REMOTES; i++) remotes.push(await startAgentServer(join(dir, `a${i}`), origin))
      await writeFile(endpointsFile, JSON.stringify(remotes.map(({ url, token }) => ({ url, token }))))
      await daemon.client.call('TrustProject', { path: repo })
      const repoIds = {}
      const createMs = {}
      for (const [kind, body] of [
        ['local', { repo_path: local }],
        ['hook', { repo_path: repo, backend: 'hook' }],
      ]) {
        const start = process.hrtime.bigint()
        for (let i = 0; i < FLEET; i++) repoIds[kind] = (await daemon.client.call('CreateSession', { ...body, title: `${kind}-${i}`, program: IDLE })).instance.repo_id
        createMs[kind] = elapsedMs(start) / FLEET
      }
      // Settled: every row past loading, and the relay's first reports in.
      for (;;) {
        const { instances } = await daemon.client.call('Snapshot', {})
        if (instances.length === 2 * FLEET && instances.every((row) => row.liveness_name !== '')) break
        await sleep(200)
      }
      await sleep(2000)
      const routes = Object.fromEntries(Object.entries(repoIds).map(([kind, repoId]) => [kind, { method: 'POST', path: '/v1/Snapshot', body: JSON.stringify({ repo_id: repoId }) }]))
      const sizes = {}
      for (const [kind, route] of Object.entries(routes)) {
        const reply = await daemon.client.raw(route.method, route.path, route.body)
        const rows = JSON.parse(reply.text).data.instances
        if (rows.length !== FLEET) throw new Error(`Snapshot of the ${kind} sessions returned ${rows.length}, expected ${FLEET}`)
        sizes[kind] = `${(Buffer.byteLength(reply.text) / 1024).toFixed(0)} KiB`
        await latencies(daemon.client, route, 20) // warm-up
      }
      const times = { local: [], hook: [] }
      for (let half = 0; half < 2; half++) {
        for (const [kind, route] of Object.entries(routes)) times[kind].push(...(await latencies(daemon.client, route, SNAPSHOTS / 2)))
      }
      for (const list of Object.values(times)) list.sort((a, b) => a - b)
      report(`Snapshot (repo_id filter) of ${FLEET} sessions on one home daemon holding both fleets, ${SNAPSHOTS} sequential requests each`, [
        ['floor: 100 local sessions', `${fmt.spread(times.local)}  (${sizes.local})`],
        [`100 hook sessions over ${REMOTES} agent servers`, `${fmt.spread(times.hook)}  (${sizes.hook})`],
        ['p50 ratio to the floor', (percentile(times.hook, 50) / percentile(times.local, 50)).toFixed(2)],
        ['mean CreateSession, local / hook on a running agent server', `${fmt.ms(createMs.local)} / ${fmt.ms(createMs.hook)}`],
      ])
    } finally {
      await daemon.stop()
      for (const remote of remotes) await remote.stop()
    }
  })
}

export async function run() {
  await createVsFloor()
  await snapshotFleet()
}
