// The hook backend's relays, against the remote they relay: a remote tab printing 20 MB
// through the home's relayed stream against the remote's own stream, and a remote change
// (RenameTab) until the home's EventRelay tells it, against a subscriber of the remote's
// feed seeing the same frame. The remote (`svc agent-server`) and the relay run on the
// server CPU; both subscribers run here.
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { EventRelay } from '@svc/core'
import { createClient } from '@svc/protocol'
import { makeHome, removeHome } from './daemon-home.mjs'
import { fmt, median, onInterrupt, percentile, report, ROUNDS, spawnServer, stopChild } from './harness.mjs'

const exec = promisify(execFile)
const AGENT_SERVER = fileURLToPath(new URL('./agent-server.mjs', import.meta.url))
const RELAY_SERVER = fileURLToPath(new URL('./relay-server.mjs', import.meta.url))
const MEGABYTES = 20
const CHANGES = 200
/** Sessions the changes go round: a session's second change within a poll tick waits for the tick's end. */
const SESSIONS = 40

const flood = (round) => `head -c ${MEGABYTES * 1000 * 1000} /dev/zero | tr '\\0' x; echo mark-$((${round}*1000+42))\r`
const marker = (round) => `mark-${round * 1000 + 42}`

/** A pinned child answering one first message; `stop` ends it. */
async function child(script, args) {
  const server = spawnServer([script, ...args], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  const answer = await new Promise((resolve, reject) => {
    server.once('message', resolve)
    server.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
  })
  const stop = onInterrupt(() => stopChild(server))
  return { server, answer, stop }
}

/** Milliseconds from typing the flood to its marker coming out of `stream`. */
async function floodTime(stream, round) {
  const began = process.hrtime.bigint()
  stream.input(flood(round))
  let seen = ''
  for (;;) {
    const { value: frame, done } = await stream.frames.next()
    if (done) throw new Error('the stream ended')
    if (frame.type !== 'output') continue
    seen = (seen + Buffer.from(frame.data).toString('latin1')).slice(-4096)
    if (seen.includes(marker(round))) return Number(process.hrtime.bigint() - began) / 1e6
  }
}

async function openStream(client, session) {
  const stream = await client.stream(session)
  return { input: (text) => stream.input(text), frames: stream[Symbol.asyncIterator](), close: () => stream.close() }
}

async function throughput(remote, home, ids) {
  const direct = await openStream(remote, ids.direct)
  const relayed = await openStream(home, 'relayed').catch((error) => (direct.close(), Promise.reject(error)))
  const times = { direct: [], relayed: [] }
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      times.direct.push(await floodTime(direct, round))
      times.relayed.push(await floodTime(relayed, round))
    }
  } finally {
    direct.close()
    relayed.close()
  }
  const mbps = (ms) => `${((MEGABYTES * 1000) / median(ms)).toFixed(1)} MB/s (${fmt.ms(median(ms))} for ${MEGABYTES} MB)`
  report(`Relayed stream throughput: a remote tab printing ${MEGABYTES} MB, median of ${ROUNDS} rounds`, [
    ["floor: the remote's own stream, over TCP", mbps(times.direct)],
    ["svc relay: the home's stream piped to the remote's", mbps(times.relayed)],
    ['throughput ratio to the floor', fmt.ratio(median(times.direct) / median(times.relayed), '>= 0.80')],
  ])
}

async function eventLatency(remote, link, sessions) {
  const tabs = []
  for (const session of sessions) tabs.push({ session, tab: (await remote.call('CreateTab', { id: session, kind: 'web', url: 'https://example.com/', name: 'web' })).id })
  // Both subscribers see the same change: the relay tells `session.updated`, the direct feed carries its frame.
  let waiting
  const renamed = (row) => row?.tabs.some((tab) => tab.name === waiting?.name)
  const relay = new EventRelay({
    onSession: (_homeId, row, kind) => kind === 'session.updated' && renamed(row) && waiting.relay(),
    onReachability: () => {},
  })
  const abort = new AbortController()
  const direct = (async () => {
    for await (const frame of remote.events({ signal: abort.signal })) if (frame.type === 'session.updated' && renamed(frame.data)) waiting.direct()
  })().catch(() => {})
  sessions.forEach((session, i) => relay.watch({ homeId: `home-${i}`, remoteId: session, ...link }))
  const times = { direct: [], relay: [] }
  try {
    await new Promise((resolve) => setTimeout(resolve, 500))
    for (let k = 0; k < CHANGES + 20; k++) {
      const { session, tab } = tabs[k % tabs.length]
      const began = process.hrtime.bigint()
      const elapsed = () => Number(process.hrtime.bigint() - began) / 1e6
      const seen = {}
      const both = Promise.all(['direct', 'relay'].map((which) => new Promise((resolve) => (seen[which] = () => resolve(elapsed())))))
      waiting = { name: `web-${k}`, ...seen }
      await remote.call('RenameTab', { id: session, tab_id: tab, new_name: waiting.name })
      const [directMs, relayMs] = await both
      // The first 20 warm up.
      if (k < 20) continue
      times.direct.push(directMs)
      times.relay.push(relayMs)
    }
  } finally {
    relay.close()
    abort.abort()
    await direct
  }
  for (const list of Object.values(times)) list.sort((a, b) => a - b)
  report(`Event relay: a remote change (RenameTab, one of ${SESSIONS} sessions) until it is told, ${CHANGES} changes`, [
    ["floor: a subscriber of the remote's feed", fmt.spread(times.direct)],
    ["svc EventRelay: the home's relay of that feed", fmt.spread(times.relay)],
    ['p50 ratio to the floor', `${(percentile(times.relay, 50) / percentile(times.direct, 50)).toFixed(2)}`],
    ['p99 ratio to the floor', `${(percentile(times.relay, 99) / percentile(times.direct, 99)).toFixed(2)}`],
  ])
}

export async function run() {
  const dir = await mkdtemp('/tmp/svc-bench-')
  const workspace = join(dir, 'repo')
  await exec('git', ['init', '-q', '-b', 'main', workspace])
  await exec('git', ['-C', workspace, '-c', 'user.name=b', '-c', 'user.email=b@localhost', 'commit', '-q', '--allow-empty', '-m', 'init'])
  const home = await makeHome({ daemon_poll_interval: '100ms' })
  const servers = []
  try {
    const agentServer = await child(AGENT_SERVER, [home.home, workspace])
    servers.push(agentServer)
    const remote = createClient(agentServer.answer)
    const link = { endpoint: agentServer.answer.url, token: agentServer.answer.token }
    const create = (title) => remote.call('CreateSession', { repo_path: workspace, title, program: 'sh', in_place: true })
    const ids = { direct: (await create('direct')).instance.id, relayed: (await create('relayed')).instance.id }
    const relayServer = await child(RELAY_SERVER, [])
    servers.push(relayServer)
    relayServer.server.send({ homeId: 'relayed', remoteId: ids.relayed, ...link })
    await throughput(remote, createClient({ url: relayServer.answer }), ids)
    const watched = [ids.direct, ids.relayed]
    while (watched.length < SESSIONS) watched.push((await create(`watched-${watched.length}`)).instance.id)
    await eventLatency(remote, link, watched)
  } finally {
    for (const server of servers.reverse()) await server.stop()
    await removeHome(home)
    await rm(dir, { recursive: true, force: true })
  }
}
