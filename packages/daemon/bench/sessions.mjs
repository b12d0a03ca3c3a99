// Sessions on real git and tmux: CreateSession against `git worktree add` plus
// `tmux new-session` run directly in the same run, Snapshot over 1,000 stored sessions,
// tmux processes spawned per poll tick with an idle fleet, and the daemon's memory.
import { execFile, execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { STATES, repoIdOf } from '@svc/core'
import { TabKind } from '@svc/protocol'
import { heapAfterGc, inspectorOptions } from './memory.mjs'
import { alternateRuns, cpuSeconds, elapsedMs, fmt, IDLE, latencyRows, median, report, startDaemon, startFloor, versusBare, withTempDir } from './harness.mjs'

const FLOOR = fileURLToPath(new URL('./session-floor.mjs', import.meta.url))
const exec = promisify(execFile)

/** Measured CreateSession calls, each alternating with one floor run. */
const CREATES = 15
/** Files in the repository the worktrees check out. */
const REPO_FILES = 50
const STORED = 1000
const STORED_REPOS = 4
const SNAPSHOTS = 500
const POLL_MS = 250
/** Poll ticks per counting window. */
const TICKS = 20

/** A repository with one commit of REPO_FILES small files. */
export async function makeRepo(root) {
  for (let i = 0; i < REPO_FILES; i++) {
    const dir = join(root, `src/m${i % 5}`)
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, `f${i}.ts`), `export const f${i} = ${i}\n`.repeat(20))
  }
  const git = (...args) => exec('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: root })
  await git('init', '-q', '-b', 'main')
  await git('add', '.')
  await git('commit', '-q', '-m', 'bench fixture')
  return root
}

async function createIdle(client, repo, titles) {
  for (const title of titles) await client.call('CreateSession', { repo_path: repo, title, program: IDLE })
}

async function createVsFloor() {
  await withTempDir(async (dir) => {
    const repo = await makeRepo(join(dir, 'repo'))
    const daemon = await startDaemon()
    let floor
    try {
      floor = await startFloor(FLOOR)
      const measure = {
        async svc(i) {
          const start = process.hrtime.bigint()
          await createIdle(daemon.client, repo, [`c${i}`])
          return elapsedMs(start)
        },
        floor: async (i) =>
          (await floor.run({
            kind: 'create',
            repo,
            path: join(dir, `repo-floor${i}`),
            branch: `floor/${i}`,
            tmuxSocket: daemon.paths.tmuxSocket,
            name: `floor_${i}`,
            command: ['/bin/sh', '-c', `exec ${IDLE}`],
          })).ms,
      }
      // Round 0's first new-session (the daemon's) starts the shared tmux server.
      const times = await alternateRuns(measure, CREATES)
      report(`CreateSession (idle program, ${REPO_FILES}-file repository), ${CREATES} runs alternating with the floor`, [
        ['floor: git worktree add + tmux new-session', fmt.medianP90(times.floor)],
        ['svc CreateSession', fmt.medianP90(times.svc)],
        ['ratio of medians', fmt.ratio(median(times.svc) / median(times.floor), '<= 1.30')],
      ])
    } finally {
      await floor?.stop()
      await daemon.stop()
    }
  })
}

/** A stored session in a state that needs no tmux (archived or dead), with three tabs. */
export function storedRecord(home, i) {
  const repoPath = `/tmp/svc-bench-stored/repo${i % STORED_REPOS}`
  const repoId = repoIdOf(repoPath)
  const title = `stored-${i}`
  const archived = i % 2 === 0
  const agentTmux = `svc_${repoId.slice(0, 8)}_${title}`
  const at = (minutes) => new Date(Date.UTC(2026, 0, 1) + (i + minutes) * 60_000).toISOString()
  const tabId = () => randomBytes(8).toString('hex')
  return {
    id: randomBytes(8).toString('hex'),
    title,
    repo_id: repoId,
    repo_path: repoPath,
    path: `${repoPath}-${title}`,
    branch: `bench/${title}`,
    branch_created: true,
    program: 'claude',
    account: '',
    backend: 'local',
    in_place: false,
    created_at: at(0),
    updated_at: at(30),
    ...STATES[archived ? 'archived' : 'dead'],
    tabs: [
      { id: tabId(), kind: TabKind.agent, name: 'agent', tmux_name: agentTmux },
      { id: tabId(), kind: TabKind.shell, name: 'shell', tmux_name: `${agentTmux}__shell` },
      { id: tabId(), kind: TabKind.web, name: 'web', url: 'http://localhost:3000' },
    ],
    last_pane_churn_at: at(20),
    last_prompt_attempt_at: at(10),
    last_prompt_delivery_status: 'delivered',
    ...(archived ? { archived_path: join(home, 'archived', repoId, title) } : {}),
  }
}

async function snapshotStored() {
  const daemon = await startDaemon({
    async prepare(paths) {
      const dir = join(paths.home, 'sessions')
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const records = Array.from({ length: STORED }, (_, i) => storedRecord(paths.home, i))
      await Promise.all(records.map((record) => writeFile(join(dir, `${record.id}.json`), `${JSON.stringify(record, null, 2)}\n`)))
    },
  })
  try {
    const route = { method: 'POST', path: '/v1/Snapshot', body: '{}' }
    const compared = await versusBare(daemon, route, SNAPSHOTS)
    const loaded = JSON.parse(compared.reply.text).data?.instances?.length
    if (loaded !== STORED) throw new Error(`Snapshot returned ${loaded} sessions, expected ${STORED}`)
    report(`Snapshot (empty body) with ${STORED.toLocaleString('en-US')} stored sessions (archived and dead, 3 tabs each), ${SNAPSHOTS} sequential requests`, [
      ['response size', `${(Buffer.byteLength(compared.reply.text) / 1024).toFixed(0)} KiB, ${loaded} sessions`],
      ...latencyRows(compared, { svc: 'p99 < 10 ms', ratio: '<= 1.50' }),
    ])
  } finally {
    await daemon.stop()
  }
}

/** A `tmux` first on the daemon's PATH that logs each call's command line, then runs the real one. */
async function tmuxShim(dir) {
  const real = execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim()
  const bin = join(dir, 'bin')
  const log = join(dir, 'tmux-calls')
  await mkdir(bin)
  await writeFile(log, '')
  // Arguments are `-S <socket> <command> …`, possibly several commands joined by `;`.
  await writeFile(join(bin, 'tmux'), `#!/bin/sh\nprintf '%s\\n' "$*" | cut -d' ' -f3- >> '${log}'\nexec '${real}' "$@"\n`)
  await chmod(join(bin, 'tmux'), 0o755)
  return {
    bin,
    calls: async () => (await readFile(log, 'utf8')).split('\n').slice(0, -1),
  }
}

async function rssKib(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1])
}

/** A tmux call's first command; a poll tick's one fleet-wide call is named for its `list-panes`. */
const commandOf = (call) => (call.includes(' list-panes -a ') ? 'list-panes' : call.split(' ')[0])

/**
 * Waits for `ticks` whole poll ticks from now and returns the tmux calls they made: each
 * tick starts with its one fleet-wide `list-panes`, which marks the window's edges.
 */
async function tickWindow(shim, pid, ticks) {
  const from = (await shim.calls()).length
  const budgetMs = 10_000 + 4 * POLL_MS * ticks
  const deadline = Date.now() + budgetMs
  let started, cpuBefore
  for (;;) {
    if (Date.now() > deadline) throw new Error(`fewer than ${ticks} poll ticks (tmux list-panes calls) in ${budgetMs} ms`)
    const calls = (await shim.calls()).slice(from).map(commandOf)
    const edges = calls.flatMap((call, i) => (call === 'list-panes' ? [i] : []))
    if (edges.length > 0 && started === undefined) [started, cpuBefore] = [process.hrtime.bigint(), cpuSeconds(pid)]
    if (edges.length > ticks) {
      const window = calls.slice(edges[0], edges[ticks])
      const byCommand = {}
      for (const call of window) byCommand[call] = (byCommand[call] ?? 0) + 1
      return {
        perTick: window.length / ticks,
        byCommand,
        periodMs: elapsedMs(started) / ticks,
        cpuMsPerTick: ((cpuSeconds(pid) - cpuBefore) * 1000) / ticks,
      }
    }
    await sleep(20)
  }
}

/**
 * The daemon's memory now: its RSS as sampled (garbage V8 has yet to collect included), then
 * its RSS and heap after a full garbage collection, which leaves what it holds.
 */
async function memoryOf(pid, inspector) {
  const sampled = await rssKib(pid)
  const heap = await heapAfterGc(inspector)
  return { sampled, collected: await rssKib(pid), heap: heap * 1024 }
}

async function idleFleet() {
  await withTempDir(async (dir) => {
    const repo = await makeRepo(join(dir, 'repo'))
    const shim = await tmuxShim(dir)
    const inspector = await inspectorOptions()
    const daemon = await startDaemon({
      config: { network: { listen_addr: '' }, daemon_poll_interval: `${POLL_MS}ms` },
      env: { PATH: `${shim.bin}:${process.env.PATH}`, ...inspector.env },
    })
    try {
      await tickWindow(shim, daemon.pid, 2) // settle after start
      const empty = await memoryOf(daemon.pid, inspector.port)
      const fleets = {}
      for (const size of [100, 200]) {
        const start = process.hrtime.bigint()
        await createIdle(daemon.client, repo, Array.from({ length: 100 }, (_, i) => `idle-${size}-${i}`))
        const createMs = elapsedMs(start) / 100
        await tickWindow(shim, daemon.pid, 3) // the first look captures each new pane once for its baseline
        fleets[size] = { ...(await tickWindow(shim, daemon.pid, TICKS)), createMs }
        fleets[size].memory = await memoryOf(daemon.pid, inspector.port)
      }
      const floor = await startFloor(FLOOR)
      const pollFloor = await floor.run({ kind: 'poll', tmuxSocket: daemon.paths.tmuxSocket, count: TICKS }).finally(() => floor.stop())
      report(`Daemon CPU per poll tick, 200 idle sessions (process CPU time over ${TICKS} ticks / ${TICKS})`, [
        ['floor: one fleet-wide tmux list-panes from bare Node', fmt.ms(pollFloor.cpuMs)],
        ['svc daemon', `${fmt.ms(fleets[200].cpuMsPerTick)}  (target <= 4 ms)`],
      ])
      const spawns = (fleet) =>
        `${fleet.perTick.toFixed(2)}  (${Object.entries(fleet.byCommand).map(([command, n]) => `${command} ${n}`).join(', ')} in ${TICKS} ticks)`
      report(`tmux processes per poll tick, idle sessions (daemon_poll_interval ${POLL_MS}ms, ${TICKS} ticks, creation not counted)`, [
        ['100 idle sessions', `${spawns(fleets[100])}  (target <= 2)`],
        ['200 idle sessions', spawns(fleets[200])],
        ['tick period observed, 100 / 200', `${fmt.ms(fleets[100].periodMs)} / ${fmt.ms(fleets[200].periodMs)}`],
        ['daemon CPU per tick, 100 / 200', `${fmt.ms(fleets[100].cpuMsPerTick)} / ${fmt.ms(fleets[200].cpuMsPerTick)}`],
        ['mean CreateSession via the shim, 1-100 / 101-200', `${fmt.ms(fleets[100].createMs)} / ${fmt.ms(fleets[200].createMs)}`],
      ])
      // As sampled, RSS swings by tens of MiB with where V8's collector happens to be (the
      // garbage of start-up and of 100 creates); after a full collection it is what the daemon holds.
      const points = [empty, fleets[100].memory, fleets[200].memory]
      const each = (pick) => points.map((point) => fmt.mib(pick(point))).join(' / ')
      const perSession = (pick) => `${((pick(fleets[200].memory) - pick(empty)) / 200).toFixed(0)} KiB`
      report('Daemon memory (VmRSS) with live idle sessions', [
        ['0 / 100 / 200 sessions, as sampled', each((point) => point.sampled)],
        ['0 / 100 / 200 sessions, after a full GC', each((point) => point.collected)],
        ['heap in use after a full GC, 0 / 100 / 200 sessions', each((point) => point.heap)],
        ['per session (0 to 200), after a full GC', perSession((point) => point.collected)],
        ['heap per session (0 to 200)', perSession((point) => point.heap)],
      ])
    } finally {
      await daemon.stop()
    }
  })
}

export async function run() {
  await createVsFloor()
  await snapshotStored()
  await idleFleet()
}
