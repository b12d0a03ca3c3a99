// The web-tab proxy: GET of a 2 KiB asset through the same-origin mirror on the TCP
// listener (with the bearer token, as a logged-in browser), against the same upstream
// reached directly, in alternating rounds. Both servers share the server CPU, so the
// ratio counts the proxy's whole cost, its hop included.
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import autocannon from 'autocannon'
import { ROUNDS, SECONDS, fmt, median, onInterrupt, percentile, report, spawnServer, startDaemon } from './harness.mjs'

const UPSTREAM = fileURLToPath(new URL('./webtab-upstream.mjs', import.meta.url))
const exec = promisify(execFile)
const SEQUENTIAL = 2000

async function startUpstream() {
  const child = spawnServer([UPSTREAM], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const port = await new Promise((resolve) => child.once('message', resolve))
  const stop = onInterrupt(() => new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill()))))
  return { port, stop }
}

/** A session with a web tab on `port`: a repository of one commit, an agent that idles. */
async function webTab(daemon, port) {
  const repo = `${daemon.home}/repo`
  const git = (...args) => exec('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: repo })
  await exec('mkdir', ['-p', repo])
  await git('init', '-q', '-b', 'main')
  await git('commit', '-q', '--allow-empty', '-m', 'bench')
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'web', program: 'sleep 100000' })
  const tab = await daemon.client.call('CreateTab', { title: 'web', kind: 'web', port })
  return `/v1/webtab/${instance.id}/${tab.id}/asset`
}

async function rps(url, headers, seconds) {
  const result = await autocannon({ url, headers, connections: 10, duration: seconds })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return result.requests.average
}

/** One keep-alive request at a time, in milliseconds. */
async function sequential(url, headers, count) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const times = []
  try {
    for (let i = 0; i < count; i++) {
      const start = process.hrtime.bigint()
      await new Promise((resolve, reject) => {
        request(url, { agent, headers }, (response) => {
          response.resume()
          response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`${url}: HTTP ${response.statusCode}`))))
        })
          .on('error', reject)
          .end()
      })
      times.push(Number(process.hrtime.bigint() - start) / 1e6)
    }
  } finally {
    agent.destroy()
  }
  return times.sort((a, b) => a - b)
}

export async function run() {
  const upstream = await startUpstream()
  const daemon = await startDaemon({ config: { network: { listen_addr: '127.0.0.1:0' } } })
  try {
    const path = await webTab(daemon, upstream.port)
    const token = (await readFile(daemon.paths.token, 'utf8')).trim()
    const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
    const targets = {
      direct: { url: `http://127.0.0.1:${upstream.port}/asset`, headers: {} },
      proxied: { url: `http://${addr}${path}`, headers: { authorization: `Bearer ${token}` } },
    }
    const seconds = Math.max(1, SECONDS / ROUNDS)
    const rounds = { direct: [], proxied: [] }
    for (const { url, headers } of Object.values(targets)) await rps(url, headers, 1) // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, { url, headers }] of Object.entries(targets)) rounds[name].push(await rps(url, headers, seconds))
    }
    const times = {}
    for (const [name, { url, headers }] of Object.entries(targets)) times[name] = await sequential(url, headers, SEQUENTIAL)
    const row = (name) => `${fmt.rps(median(rounds[name]))}  ${fmt.spread(times[name])}`
    report('GET of a 2 KiB asset from a web tab: through /v1/webtab/ on the TCP listener vs the upstream directly', [
      ['upstream directly (node:http)', row('direct')],
      ['through the svc proxy', row('proxied')],
      ['throughput ratio to direct', fmt.ratio(median(rounds.proxied) / median(rounds.direct), '>= 0.80')],
      ['p99 ratio to direct', (percentile(times.proxied, 99) / percentile(times.direct, 99)).toFixed(2)],
    ])
  } finally {
    await daemon.stop()
    await upstream.stop()
  }
}
