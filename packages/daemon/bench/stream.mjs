// Terminal streams: a tab printing 50 MB through the daemon's stream against node-pty
// reading the same `tmux attach` directly on the server CPU (stream-floor.mjs), and the
// keystroke round trip (input frame in, output frame showing it) against `tmux
// send-keys` + `capture-pane`.
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { fmt, median, percentile, report, ROUNDS, startDaemon, startFloor } from './harness.mjs'

const exec = promisify(execFile)
const FLOOR = fileURLToPath(new URL('./stream-floor.mjs', import.meta.url))
const MEGABYTES = 50
const KEYSTROKES = 200

/** The shell command that prints MEGABYTES, then a marker the typed line cannot show. */
const flood = (round) => `head -c ${MEGABYTES * 1000 * 1000} /dev/zero | tr '\\0' x; echo mark-$((${round}*1000+42))\r`
const marker = (round) => `mark-${round * 1000 + 42}`

/** Milliseconds until `text` shows up in what `subscribe` delivers, after `start`. */
export function timeUntil(subscribe, start, text) {
  return new Promise((resolve) => {
    let seen = ''
    const began = process.hrtime.bigint()
    const stop = subscribe((chunk) => {
      seen = (seen + chunk).slice(-4096)
      if (!seen.includes(text)) return
      stop()
      resolve(Number(process.hrtime.bigint() - began) / 1e6)
    })
    start()
  })
}

export async function streamFrames(client, title) {
  const stream = await client.stream(title)
  const listeners = new Set()
  ;(async () => {
    for await (const frame of stream) {
      if (frame.type === 'output') for (const listener of listeners) listener(Buffer.from(frame.data).toString('latin1'))
    }
  })()
  return {
    stream,
    subscribe: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
  }
}

export async function run() {
  const dir = await mkdtemp('/tmp/svc-bench-')
  const repo = join(dir, 'repo')
  await exec('git', ['init', '-q', '-b', 'main', repo])
  await exec('git', ['-C', repo, '-c', 'user.name=b', '-c', 'user.email=b@localhost', 'commit', '-q', '--allow-empty', '-m', 'init'])
  const daemon = await startDaemon()
  try {
    const streamed = await daemon.client.call('CreateSession', { repo_path: repo, title: 'streamed', program: 'sh' })
    const direct = await daemon.client.call('CreateSession', { repo_path: repo, title: 'direct', program: 'sh' })
    const viaStream = await streamFrames(daemon.client, 'streamed')
    const floor = await startFloor(FLOOR)
    const times = { stream: [], pty: [] }
    try {
      const job = { tmuxSocket: daemon.paths.tmuxSocket, target: direct.instance.tabs[0].tmux_name }
      for (let round = 1; round <= ROUNDS; round++) {
        times.stream.push(await timeUntil(viaStream.subscribe, () => viaStream.stream.input(flood(round)), marker(round)))
        times.pty.push((await floor.run({ ...job, text: flood(round), marker: marker(round) })).ms)
      }
    } finally {
      await floor.stop()
    }
    const mbps = (ms) => `${((MEGABYTES * 1000) / median(ms)).toFixed(1)} MB/s (${fmt.ms(median(ms))} for ${MEGABYTES} MB)`
    report(`Stream throughput: a tab printing ${MEGABYTES} MB, median of ${ROUNDS} rounds`, [
      ['floor: node-pty on tmux attach, direct, on the server CPU', mbps(times.pty)],
      ['svc stream (WebSocket over the socket)', mbps(times.stream)],
      ['throughput ratio to the floor', fmt.ratio(median(times.pty) / median(times.stream), '>= 0.80')],
    ])

    const target = `=${streamed.instance.tabs[0].tmux_name}:`
    const keys = { stream: [], floor: [] }
    let typed = ''
    for (let i = 0; i < KEYSTROKES; i++) {
      const key = String.fromCharCode(97 + (i % 26))
      keys.stream.push(await timeUntil(viaStream.subscribe, () => viaStream.stream.input(key), key))
      typed += key
      // The floor: the same key through tmux itself, seen by capturing the pane.
      const began = process.hrtime.bigint()
      await exec('tmux', ['-S', daemon.paths.tmuxSocket, 'send-keys', '-t', target, '-l', key])
      typed += key
      for (;;) {
        const { stdout } = await exec('tmux', ['-S', daemon.paths.tmuxSocket, 'capture-pane', '-p', '-t', target])
        if (stdout.trimEnd().endsWith(typed)) break
      }
      keys.floor.push(Number(process.hrtime.bigint() - began) / 1e6)
      if (typed.length > 60) {
        viaStream.stream.input('\u0015')
        typed = ''
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    for (const list of Object.values(keys)) list.sort((a, b) => a - b)
    report(`Keystroke round trip, ${KEYSTROKES} keys`, [
      ['floor: tmux send-keys + capture-pane', fmt.spread(keys.floor)],
      ['svc stream: input frame in, output frame showing it', fmt.spread(keys.stream)],
      ['p99 ratio to the floor', fmt.ratio(percentile(keys.stream, 99) / percentile(keys.floor, 99), '<= 1.00')],
    ])
    viaStream.stream.close()
  } finally {
    await daemon.stop()
    await rm(dir, { recursive: true, force: true })
  }
}
