// Hook sessions on a provisioned host over ssh, the "host" being an sshd the bench starts on
// this machine's loopback (no traffic leaves it): CreateSession through provision_cmd
// against the same steps by hand (`ssh host true`, `git clone`, `svc agent-server` until
// its endpoint line), and the keystroke round trip through the home's stream over the ssh
// forward against a direct loopback connection to the agent server's own stream (and, to
// tell OpenSSH's share from svc's, through a plain ssh -L run by hand, and handed whole to
// the home's own ssh master, the least any design over that master could reach). The home
// daemon runs on the server CPU; sshd and what it starts inherit the bench's CPUs, as the
// floor's steps do.
import { execFile, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { createClient, servicePaths } from '@svc/protocol'
import { alternateRuns, elapsedMs, fmt, IDLE, median, onInterrupt, percentile, report, startDaemon, stopChild, withTempDir } from './harness.mjs'
import { hookRepo } from './hook.mjs'
import { streamFrames, timeUntil } from './stream.mjs'
import { loopbackPort, writeSshdConfig } from '../../test-kit/fixtures/sshd-config.mjs'

const exec = promisify(execFile)
const CLI_MAIN = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url))
/** The tests' provision_cmd: prints the host it is told of as {host, port, host_key, user}. */
const PROVISION = fileURLToPath(new URL('../../test-kit/fixtures/hooks/provision.mjs', import.meta.url))
const SSHD = '/usr/sbin/sshd'
/** Measured creations, each alternating with one floor run; each starts an agent server over ssh. */
const CREATES = 6
const KEYSTROKES = 200
const WARM_KEYS = 20

/** The processes whose command line contains `text`, each read once (it may end meanwhile): pid and arguments. */
export function processesWith(text) {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .flatMap((pid) => {
      try {
        const line = readFileSync(`/proc/${pid}/cmdline`, 'latin1')
        return line.includes(text) ? [{ pid: Number(pid), args: line.split('\0') }] : []
      } catch {
        return []
      }
    })
}

/** The pids of processes whose command line contains `text`. */
export function pidsWith(text) {
  return processesWith(text).map(({ pid }) => pid)
}

export function kill(pid, signal = 'SIGKILL') {
  try {
    process.kill(pid, signal)
  } catch {
    // Already ended.
  }
}

/**
 * sshd on a free loopback port with a host key and a client key made here, the client's
 * key authorized for the current user, its sessions' HOME in `dir` (where the provisioned
 * workspaces land). `stop` kills it and whatever agent servers and tmux servers svc left
 * in that HOME. `place` (an address and a spawn that starts processes there) puts it in a
 * network namespace, as the fault test does; loopback without one.
 */
export async function startSshd(dir, place = { address: '127.0.0.1', spawn }) {
  const keys = { host: join(dir, 'hk'), client: join(dir, 'ck') }
  for (const file of Object.values(keys)) await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'svc-bench', '-f', file])
  const remoteHome = join(dir, 'rh')
  await mkdir(remoteHome)
  const port = await loopbackPort()
  let child
  /** sshd listening with `hostKey`, the one before it (if any) stopped; sessions it already serves go on. */
  const serve = async (hostKey) => {
    if (child) {
      kill(child.pid)
      await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve)))
    }
    const config = await writeSshdConfig({ dir, address: place.address, port, hostKey, clientKey: keys.client, remoteHome })
    child = place.spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    while (!stderr.includes('Server listening')) {
      if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}: ${stderr.trim()}`)
      await sleep(20)
    }
  }
  const workspaces = join(remoteHome, 'svc-workspaces')
  const stop = onInterrupt(async () => {
    if (child) kill(child.pid)
    for (const name of existsSync(workspaces) ? readdirSync(workspaces).filter((entry) => entry.endsWith('.home')) : []) {
      const pidFile = join(workspaces, name, 'agent-server.pid')
      if (existsSync(pidFile)) kill(-Number(readFileSync(pidFile, 'utf8')))
      await new Promise((resolve) => execFile('tmux', ['-S', servicePaths(join(workspaces, name)).tmuxSocket, 'kill-server'], resolve))
    }
  })
  try {
    await serve(keys.host)
  } catch (error) {
    await stop()
    throw error
  }
  const hostKey = `${keys.host}.pub`
  const knownHosts = join(dir, 'known_hosts')
  await writeFile(knownHosts, `[${place.address}]:${port} ${(await readFile(hostKey, 'utf8')).split(' ').slice(0, 2).join(' ')}\n`)
  return { port, user: userInfo().username, hostKey, hostKeyFile: keys.host, clientKey: keys.client, knownHosts, remoteHome, serve, stop }
}

/** A home daemon whose repository's provision_cmd names the bench's sshd, and the pieces of the floor. */
async function provisionWorld(dir, sshd) {
  const state = join(dir, 'r')
  await mkdir(state)
  const provision = [process.execPath, PROVISION, '--state', state, '--host', '127.0.0.1', '--port', sshd.port, '--user', sshd.user, '--host-key', sshd.hostKey]
  const { repo, origin } = await hookRepo(dir, { provision_cmd: provision.join(' '), delete_cmd: '/bin/true' })
  // remote_svc_command: the built CLI, as a host would have svc on its PATH.
  const svc = join(dir, 'svc')
  await writeFile(svc, `#!/bin/sh\nexec ${process.execPath} ${CLI_MAIN} "$@"\n`)
  await chmod(svc, 0o755)
  const daemon = await startDaemon({
    config: { network: { listen_addr: '' }, remote_ssh_command: `ssh -i ${sshd.clientKey} -F /dev/null`, remote_svc_command: svc },
  })
  // A daemon that died would leave its masters (ControlPersist): ended by their control paths.
  const sweep = onInterrupt(async () => pidsWith(join(daemon.home, 'remote-ssh')).forEach((pid) => kill(pid)))
  const stop = async () => {
    await daemon.stop()
    await sweep()
  }
  await daemon.client.call('TrustProject', { path: repo })
  return { repo, origin, svc, daemon, stop }
}

/** The arguments of an ssh a person runs to the bench's sshd, its host key pinned; the host to follow. */
function byHand(sshd) {
  const pinned = ['StrictHostKeyChecking=yes', 'GlobalKnownHostsFile=/dev/null', `UserKnownHostsFile=${sshd.knownHosts}`, 'BatchMode=yes'].flatMap((option) => ['-o', option])
  return ['-F', '/dev/null', '-i', sshd.clientKey, ...pinned, '-p', String(sshd.port), '-l', sshd.user]
}

/**
 * A plain `ssh -N -L` a person runs to reach the host's agent server on `remotePort`, no
 * svc in the way: its local URL once the forward answers, and `stop`.
 */
async function plainForward(sshd, remotePort) {
  const local = await loopbackPort()
  const child = spawn('ssh', [...byHand(sshd), '-N', '-o', 'ExitOnForwardFailure=yes', '-L', `127.0.0.1:${local}:127.0.0.1:${remotePort}`, '127.0.0.1'], { stdio: 'ignore' })
  const stop = onInterrupt(() => stopChild(child))
  const answers = () => new Promise((resolve) => connect(local, '127.0.0.1').once('connect', function () { this.destroy(); resolve(true) }).once('error', () => resolve(false)))
  while (!(await answers())) {
    if (child.exitCode !== null) throw new Error(`ssh -L exited with ${child.exitCode}`)
    await sleep(20)
  }
  return { url: `http://127.0.0.1:${local}`, stop }
}

/**
 * The least svc's design could reach over its own master: a local port whose every
 * connection is handed whole to the home's ssh master (`ssh -W` through its control
 * socket, which passes the connection itself to the master), so that no process but the
 * master carries its bytes; the client still speaks the agent server's stream directly.
 */
async function throughMaster(world, remotePort) {
  const control = processesWith(join(world.daemon.home, 'remote-ssh')).flatMap(({ args }) => args).find((arg) => arg.startsWith('ControlPath='))
  if (!control) throw new Error("no ssh master of the home's session is running")
  const children = new Set()
  const server = createServer({ pauseOnConnect: true }, (socket) => {
    const child = spawn('ssh', ['-F', '/dev/null', '-o', control, '-o', 'ControlMaster=no', '-W', `127.0.0.1:${remotePort}`, '127.0.0.1'], { stdio: [socket, socket, 'ignore'] })
    children.add(child.once('exit', () => children.delete(child)))
    // The child holds its own copy of the connection: this process's is closed, never read.
    child.once('spawn', () => socket.destroy())
  })
  const port = await loopbackPort()
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  const stop = onInterrupt(async () => {
    server.close()
    await Promise.all([...children].map((child) => stopChild(child)))
  })
  return { url: `http://127.0.0.1:${port}`, stop }
}

/**
 * The floor of a create: what a person does by hand to get the same agent server: one ssh
 * connection with the host key pinned, a clone, and `svc agent-server` started until it
 * prints its endpoint. Stops it after.
 */
async function createByHand(sshd, world, slug) {
  const start = process.hrtime.bigint()
  await exec('ssh', [...byHand(sshd), '127.0.0.1', 'true'])
  const workspace = join(sshd.remoteHome, slug)
  const home = join(sshd.remoteHome, `${slug}.home`)
  await exec('git', ['clone', '-q', world.origin, workspace])
  await mkdir(home)
  const server = spawn(world.svc, ['agent-server', '--home', home, '--workspace', workspace, '--listen', '127.0.0.1:0'], {
    env: { ...process.env, HOME: sshd.remoteHome },
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  try {
    let out = ''
    server.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
    while (!out.includes('\n')) {
      if (server.exitCode !== null) throw new Error(`agent-server exited with ${server.exitCode}`)
      await sleep(5)
    }
    return elapsedMs(start)
  } finally {
    await stopChild(server)
    await rm(workspace, { recursive: true, force: true })
    await rm(home, { recursive: true, force: true })
  }
}

/** Until the home's row of `id` reads ready. */
async function untilReady(client, id) {
  for (;;) {
    const { instances } = await client.call('Snapshot', {})
    if (instances.find((row) => row.id === id)?.liveness_name === 'ready') return
    await sleep(5)
  }
}

async function createVsFloor(sshd, world) {
  const measure = {
    async svc(i) {
      const start = process.hrtime.bigint()
      const { instance } = await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: `c-${i}`, backend: 'hook', program: IDLE })
      const answered = elapsedMs(start)
      await untilReady(world.daemon.client, instance.id)
      const ready = elapsedMs(start)
      await world.daemon.client.call('KillSession', { id: instance.id })
      return { answered, ready }
    },
    floor: async (i) => ({ answered: await createByHand(sshd, world, `floor-${i}`) }),
  }
  const runs = await alternateRuns(measure, CREATES)
  const times = { svc: runs.svc.map((run) => run.answered), ready: runs.svc.map((run) => run.ready), floor: runs.floor.map((run) => run.answered) }
  report(`CreateSession of a hook session over ssh (provision_cmd, sshd on loopback), ${CREATES} runs alternating with the floor`, [
    ['floor: ssh host true + git clone + svc agent-server until its endpoint line', fmt.medianP90(times.floor)],
    ['svc CreateSession, provision_cmd: until it answers', fmt.medianP90(times.svc)],
    ['svc CreateSession: until the row reads ready', fmt.medianP90(times.ready)],
    ['ratio of medians (until it answers)', (median(times.svc) / median(times.floor)).toFixed(2)],
  ])
}

/** Types `key` `count` times into each stream in turn, its line cleared now and then; the round trips of each, sorted. */
async function keystrokes(streams, count) {
  const times = Object.fromEntries(Object.keys(streams).map((name) => [name, []]))
  const typed = Object.fromEntries(Object.keys(streams).map((name) => [name, 0]))
  for (let i = 0; i < count; i++) {
    const key = String.fromCharCode(97 + (i % 26))
    for (const [name, { stream, subscribe }] of Object.entries(streams)) {
      times[name].push(await timeUntil(subscribe, () => stream.input(key), key))
      if ((typed[name] += 1) > 60) {
        stream.input('\u0015')
        typed[name] = 0
        await sleep(50)
      }
    }
  }
  for (const list of Object.values(times)) list.sort((a, b) => a - b)
  return times
}

async function keystrokeRoundTrip(sshd, world) {
  const { instance } = await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: 'keys', backend: 'hook', program: 'sh' })
  try {
    // The agent server svc started on the host, reached directly on loopback with its own token.
    const base = join(sshd.remoteHome, 'svc-workspaces')
    const endpoint = JSON.parse(await readFile(join(base, 'keys.home', 'endpoint'), 'utf8'))
    const remote = createClient(endpoint)
    // Each stream its own session in the workspace: one stream's echo is never read as another's.
    const inPlace = async (title) => (await remote.call('CreateSession', { repo_path: join(base, 'keys'), title, program: 'sh', in_place: true })).instance.id
    const forward = await plainForward(sshd, new URL(endpoint.url).port)
    const master = await throughMaster(world, new URL(endpoint.url).port)
    const streams = {
      svc: await streamFrames(world.daemon.client, 'keys'),
      floor: await streamFrames(remote, await inPlace('direct')),
      forward: await streamFrames(createClient({ url: forward.url, token: endpoint.token }), await inPlace('forwarded')),
      master: await streamFrames(createClient({ url: master.url, token: endpoint.token }), await inPlace('handed')),
    }
    try {
      await keystrokes(streams, WARM_KEYS)
      const times = await keystrokes(streams, KEYSTROKES)
      const spread = (sorted) => `p50 ${fmt.ms(percentile(sorted, 50))}  p95 ${fmt.ms(percentile(sorted, 95))}`
      const ratio = (to, p) => (percentile(times.svc, p) / percentile(times[to], p)).toFixed(2)
      const bound = (p) => (percentile(times.master, p) / percentile(times.floor, p)).toFixed(2)
      report(`Keystroke round trip over ssh (input frame in, output frame showing the key), ${KEYSTROKES} keys each, alternating`, [
        ["floor: the host's agent server stream, direct on loopback", spread(times.floor)],
        ['the same through a plain ssh -N -L run by hand (no svc): what OpenSSH alone adds', spread(times.forward)],
        ["svc: the home's stream, relayed over the ssh forward", spread(times.svc)],
        ["the connection handed whole to the home's ssh master (ssh -W): the least svc's design could reach", spread(times.master)],
        ['p50 / p95 ratio to the floor', `${ratio('floor', 50)} / ${ratio('floor', 95)}`],
        ["the same for the connection handed to the home's master", `${bound(50)} / ${bound(95)}`],
        ['p50 / p95 ratio to the plain forward: what svc adds', `${ratio('forward', 50)} / ${ratio('forward', 95)}`],
      ])
    } finally {
      for (const { stream } of Object.values(streams)) stream.close()
      await forward.stop()
      await master.stop()
    }
  } finally {
    await world.daemon.client.call('KillSession', { id: instance.id })
  }
}

/** True, having said the suite is skipped, on a machine without sshd. */
export function withoutSshd(suite) {
  if (existsSync(SSHD)) return false
  process.stdout.write(`\n${suite}: skipped (${SSHD} is not installed; .ci/run installs openssh-server)\n`)
  return true
}

export async function run() {
  if (withoutSshd('ssh')) return
  await withTempDir(async (dir) => {
    const sshd = await startSshd(dir)
    try {
      const world = await provisionWorld(dir, sshd)
      try {
        await createVsFloor(sshd, world)
        await keystrokeRoundTrip(sshd, world)
      } finally {
        await world.stop()
      }
    } finally {
      await sshd.stop()
    }
  })
}
