// Sessions on a host of ssh_hosts (backend ssh), the "host" being an sshd the bench starts on
// this machine's loopback, whose PATH has no svc: CreateSession on a host without svc (the
// install included) and then with it installed, each against the same steps by hand (ssh
// with the key pinned, the tarball piped over ssh and unpacked, a clone, svc agent-server
// until its endpoint line); and Snapshot of 30 sessions on one ssh host against 30 local
// ones (target p50 <= 1.5x). Printed, never asserted.
import { execFile, spawn } from 'node:child_process'
import { createReadStream, existsSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { build } from 'vite'
import { SVC_VERSION } from '@svc/protocol'
import { packSvc } from '../../../scripts/pack-svc.mjs'
import { alternateRuns, elapsedMs, fmt, IDLE, latencies, median, onInterrupt, percentile, report, startDaemon, withTempDir } from './harness.mjs'
import { hookRepo } from './hook.mjs'
import { kill, pidsWith, startSshd, withoutSshd } from './ssh.mjs'

const exec = promisify(execFile)
const WEB = fileURLToPath(new URL('../../web/', import.meta.url))
const FIRST = 3
const REUSED = 5
const MANY = 30
const SNAPSHOTS = 300

/** A home daemon with the bench's sshd as ssh_hosts' `bench`, installing the packed tarball there. */
async function hostWorld(dir, sshd, tarball) {
  const { repo, origin } = await hookRepo(dir, {})
  const hostKey = (await exec('cat', [sshd.hostKey])).stdout.split(' ').slice(0, 2).join(' ')
  const daemon = await startDaemon({
    config: {
      network: { listen_addr: '' },
      remote_ssh_command: `ssh -i ${sshd.clientKey} -F /dev/null`,
      ssh_hosts: { bench: { host: '127.0.0.1', port: sshd.port, user: sshd.user, host_key: hostKey } },
    },
    env: { SVC_ARTIFACT: tarball },
  })
  await daemon.client.call('TrustProject', { path: repo })
  // A daemon that died would leave its host's master (ControlPersist): ended by its control path.
  const sweep = onInterrupt(async () => pidsWith(join(daemon.home, 'ssh-hosts')).forEach((pid) => kill(pid)))
  const stop = async () => {
    await daemon.stop()
    await sweep()
  }
  return { repo, origin, daemon, stop }
}

/** Until the home's row of `id` reads ready. */
async function untilReady(client, id) {
  for (;;) {
    const { instances } = await client.call('Snapshot', {})
    if (instances.find((row) => row.id === id)?.liveness_name === 'ready') return
    await sleep(5)
  }
}

/** ssh to the bench's sshd with its key pinned, `input` (a file) on its stdin. */
function ssh(sshd, command, input) {
  const pinned = ['StrictHostKeyChecking=yes', 'GlobalKnownHostsFile=/dev/null', `UserKnownHostsFile=${sshd.knownHosts}`, 'BatchMode=yes'].flatMap((option) => ['-o', option])
  const child = spawn('ssh', ['-F', '/dev/null', '-i', sshd.clientKey, ...pinned, '-p', String(sshd.port), '-l', sshd.user, '127.0.0.1', command], { stdio: ['pipe', 'pipe', 'inherit'] })
  if (input) createReadStream(input).pipe(child.stdin)
  else child.stdin.end()
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
  return { child, out: () => out, done: new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`ssh ${command} exited with ${code}`))))) }
}

/**
 * The floor: what a person does by hand for the same agent server over one ssh connection
 * each step: (first) the tarball piped over ssh and unpacked; a clone there; svc
 * agent-server from the unpacked tree until it prints its endpoint. Stops it after.
 */
async function createByHand(sshd, world, tarball, slug, install) {
  const dir = `$HOME/.svc-agent/versions/${SVC_VERSION}`
  const start = process.hrtime.bigint()
  if (install) await ssh(sshd, `mkdir -p ${dir} && tar -xzf - -C ${dir} --strip-components=1`, tarball).done
  // The "host" is this machine: what the agent server made there is ended and removed from here.
  const ws = join(sshd.remoteHome, 'by-hand', slug)
  const server = ssh(sshd, `git clone -q ${world.origin} ${ws} && mkdir -p ${ws}.home && echo $$ >${ws}.pid && exec ${dir}/bin/svc agent-server --home ${ws}.home --workspace ${ws} --listen 127.0.0.1:0`)
  try {
    while (!server.out().includes('\n')) {
      if (server.child.exitCode !== null) throw new Error(`agent-server exited with ${server.child.exitCode}`)
      await sleep(5)
    }
    return elapsedMs(start)
  } finally {
    const pid = Number(await readFile(`${ws}.pid`, 'utf8').catch(() => '0'))
    if (pid > 0) {
      kill(pid, 'SIGTERM')
      while (pidsWith(`--workspace ${ws}`).length > 0) await sleep(10)
    }
    server.child.kill('SIGTERM')
    await server.done.catch(() => {})
    await Promise.all([ws, `${ws}.home`, `${ws}.pid`].map((path) => rm(path, { recursive: true, force: true })))
  }
}

async function createVsFloor(sshd, world, tarball) {
  const installed = join(sshd.remoteHome, '.svc-agent')
  const figures = {}
  for (const [name, count, install] of [['first', FIRST, true], ['reused', REUSED, false]]) {
    const measure = {
      async svc(i) {
        if (install) await rm(installed, { recursive: true, force: true })
        const start = process.hrtime.bigint()
        const { instance } = await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: `${name}-${i}`, backend: 'ssh', host: 'bench', program: IDLE })
        const answered = elapsedMs(start)
        await untilReady(world.daemon.client, instance.id)
        await world.daemon.client.call('KillSession', { id: instance.id })
        return answered
      },
      async floor(i) {
        if (install) await rm(installed, { recursive: true, force: true })
        return createByHand(sshd, world, tarball, `${name}-${i}`, install)
      },
    }
    figures[name] = await alternateRuns(measure, count)
  }
  const row = (name) => (median(figures[name].svc) / median(figures[name].floor)).toFixed(2)
  report(`CreateSession on an ssh host without svc (backend ssh, sshd on loopback): ${FIRST} runs installing it, ${REUSED} reusing it, alternating with the floor`, [
    ['floor, first: tarball piped over ssh and unpacked + git clone + svc agent-server until its endpoint line', fmt.medianP90(figures.first.floor)],
    ['svc CreateSession, first (svc installed on the host): until it answers', fmt.medianP90(figures.first.svc)],
    ['floor, reused: git clone + svc agent-server until its endpoint line', fmt.medianP90(figures.reused.floor)],
    ['svc CreateSession, reused (svc already there): until it answers', fmt.medianP90(figures.reused.svc)],
    ['ratio of medians, first', row('first')],
    ['ratio of medians, reused', row('reused')],
  ])
}

/** Snapshot p50 of MANY sessions on the ssh host against MANY local ones in a daemon of the same config. */
async function snapshotVsLocal(world) {
  const local = await startDaemon({ config: { network: { listen_addr: '' } } })
  try {
    const titles = Array.from({ length: MANY }, (_, index) => `many-${index}`)
    await Promise.all(titles.map((title) => world.daemon.client.call('CreateSession', { repo_path: world.repo, title, backend: 'ssh', host: 'bench', program: IDLE })))
    for (const title of titles) await local.client.call('CreateSession', { repo_path: world.repo, title, program: IDLE, in_place: false })
    const route = { method: 'POST', path: '/v1/Snapshot', body: '{}' }
    const times = { ssh: [], local: [] }
    for (let round = 0; round < 6; round++) {
      for (const [name, client] of round % 2 === 0 ? [['ssh', world.daemon.client], ['local', local.client]] : [['local', local.client], ['ssh', world.daemon.client]]) {
        const measured = await latencies(client, route, SNAPSHOTS / 6)
        if (round > 0) times[name].push(...measured)
      }
    }
    for (const list of Object.values(times)) list.sort((a, b) => a - b)
    report(`Snapshot of ${MANY} sessions on one ssh host against ${MANY} local ones, ${SNAPSHOTS} sequential requests each, alternating`, [
      [`floor: ${MANY} local sessions`, fmt.spread(times.local)],
      [`svc: ${MANY} sessions on one ssh host`, fmt.spread(times.ssh)],
      ['p50 ratio to the floor', fmt.ratio(percentile(times.ssh, 50) / percentile(times.local, 50), '<= 1.5')],
    ])
    const { instances } = await world.daemon.client.call('Snapshot', {})
    await Promise.all(instances.map((row) => world.daemon.client.call('KillSession', { id: row.id })))
  } finally {
    await local.stop()
  }
}

export async function run() {
  if (withoutSshd('ssh-host')) return
  await withTempDir(async (dir) => {
    // pack:svc bundles the built packages; `pnpm bench` builds all but the web UI.
    if (!existsSync(join(WEB, 'dist', 'index.html'))) await build({ root: WEB, logLevel: 'silent' })
    const { path: tarball } = await packSvc({ outDir: dir })
    const sshd = await startSshd(dir)
    try {
      const world = await hostWorld(dir, sshd, tarball)
      try {
        await createVsFloor(sshd, world, tarball)
        await snapshotVsLocal(world)
      } finally {
        await world.stop()
      }
    } finally {
      await sshd.stop()
    }
  })
}
