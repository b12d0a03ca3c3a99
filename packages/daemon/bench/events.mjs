// The event plane: state change -> event frame latency with 100 sessions and 20
// subscribers, against a bare ws server doing a durable write and sending a frame of the
// same size on the same trigger; and the daemon's RSS per idle subscriber.
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import { createClient } from '@svc/protocol'
import { fmt, onInterrupt, percentile, report, spawnServer, startDaemon, stopChild } from './harness.mjs'
import { rssMiB } from './memory.mjs'
import { storedRecord } from './sessions.mjs'

const FLOOR = fileURLToPath(new URL('./events-floor.mjs', import.meta.url))
const SESSIONS = 100
const SUBSCRIBERS = 20
const TRIGGERS = 400
const IDLE_SUBSCRIBERS = 500

/** Opens `count` subscribers on `address`; `arrived(k)` resolves once every one has received k frames after its hello. */
async function subscribe(address, count) {
  const received = new Array(count).fill(0)
  let waiting
  const sockets = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(address)
        socket.on('message', () => {
          received[i]++
          if (waiting && received.every((n) => n > waiting.k)) waiting.resolve()
        })
        socket.once('open', () => resolve(socket)).once('error', reject)
      }),
    ),
  )
  const arrived = (k) => (received.every((n) => n > k) ? Promise.resolve() : new Promise((resolve) => (waiting = { k, resolve })))
  return { arrived, close: () => sockets.forEach((socket) => socket.terminate()) }
}

/** Milliseconds from sending each trigger to its frame reaching all subscribers. */
async function latencies(trigger, feed, from, count) {
  const times = []
  for (let k = from; k < from + count; k++) {
    const start = process.hrtime.bigint()
    const answered = trigger(k)
    await feed.arrived(k)
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
    await answered
  }
  return times
}

async function startFloor(home, frame) {
  const socketPath = join(home, 'floor.sock')
  const dir = join(home, 'floor')
  await mkdir(dir, { recursive: true })
  await rm(socketPath, { force: true })
  const child = spawnServer([FLOOR, socketPath, dir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  child.send(frame)
  await new Promise((resolve) => child.once('message', resolve))
  const stop = onInterrupt(() => stopChild(child))
  return { socketPath, stop }
}

async function latencyVsFloor() {
  const daemon = await startDaemon({
    // The fastest tick: renames of one session within a tick would be coalesced into its end.
    config: { network: { listen_addr: '' }, daemon_poll_interval: '100ms' },
    async prepare(paths) {
      const dir = join(paths.home, 'sessions')
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const records = Array.from({ length: SESSIONS }, (_, i) => storedRecord(paths.home, i))
      await Promise.all(records.map((record) => writeFile(join(dir, `${record.id}.json`), `${JSON.stringify(record, null, 2)}\n`)))
    },
  })
  let floor
  const feeds = []
  try {
    const { instances } = await daemon.client.call('Snapshot', {})
    const webTabs = instances.map((session) => ({ id: session.id, tab_id: session.tabs[2].id }))
    // Each trigger renames the web tab of the next session: one session.updated frame.
    const rename = (k) => {
      const { id, tab_id } = webTabs[typeof k === 'number' ? k % webTabs.length : 0]
      return daemon.client.call('RenameTab', { id, tab_id, new_name: `web-${k}` })
    }
    const address = `ws+unix://${daemon.paths.socket}:/v1/events`
    const svcFeed = await subscribe(address, SUBSCRIBERS)
    feeds.push(svcFeed)
    // A first change, seen by one more subscriber: the floor sends frames of its size.
    const sampler = new WebSocket(address)
    const frame = await new Promise((resolve) => {
      sampler.on('message', (data) => String(data).includes('"session.updated"') && resolve(String(data)))
      sampler.once('open', () => rename('sample'))
    })
    sampler.terminate()
    floor = await startFloor(daemon.home, frame)
    const floorClient = createClient({ socketPath: floor.socketPath })
    const floorFeed = await subscribe(`ws+unix://${floor.socketPath}:/`, SUBSCRIBERS)
    feeds.push(floorFeed)
    const poke = () => floorClient.raw('POST', '/trigger', '{}')
    // Frames each subscriber has had: the hello, and on the daemon the sample.
    let svcAt = 2
    let floorAt = 1
    const times = { svc: [], floor: [] }
    await latencies(rename, svcFeed, svcAt, 20)
    await latencies(poke, floorFeed, floorAt, 20)
    svcAt += 20
    floorAt += 20
    for (let half = 0; half < 2; half++) {
      times.svc.push(...(await latencies(rename, svcFeed, svcAt, TRIGGERS / 2)))
      svcAt += TRIGGERS / 2
      times.floor.push(...(await latencies(poke, floorFeed, floorAt, TRIGGERS / 2)))
      floorAt += TRIGGERS / 2
    }
    for (const list of Object.values(times)) list.sort((a, b) => a - b)
    report(`Event plane: a change (RenameTab, one of ${SESSIONS} sessions) until its frame reached all ${SUBSCRIBERS} subscribers, ${TRIGGERS} changes`, [
      ['frame size', `${Buffer.byteLength(frame)} bytes`],
      ['floor: bare ws server, durable write + same frame', fmt.spread(times.floor)],
      ['svc daemon', fmt.spread(times.svc)],
      ['p50 ratio to the floor', `${(percentile(times.svc, 50) / percentile(times.floor, 50)).toFixed(2)}`],
      ['p99 ratio to the floor', `${(percentile(times.svc, 99) / percentile(times.floor, 99)).toFixed(2)}`],
    ])
  } finally {
    for (const feed of feeds) feed.close()
    await floor?.stop()
    await daemon.stop()
  }
}

async function rssPerSubscriber() {
  const daemon = await startDaemon()
  let feed
  try {
    await sleep(1000)
    const before = rssMiB(daemon.pid)
    feed = await subscribe(`ws+unix://${daemon.paths.socket}:/v1/events`, IDLE_SUBSCRIBERS)
    await sleep(1000)
    const after = rssMiB(daemon.pid)
    report(`Event plane: daemon memory with ${IDLE_SUBSCRIBERS} idle subscribers`, [
      ['RSS before', `${before.toFixed(1)} MiB`],
      ['RSS after', `${after.toFixed(1)} MiB`],
      ['RSS per idle subscriber', `${(((after - before) * 1024) / IDLE_SUBSCRIBERS).toFixed(1)} KiB`],
    ])
  } finally {
    feed?.close()
    await daemon.stop()
  }
}

export async function run() {
  await latencyVsFloor()
  await rssPerSubscriber()
}
