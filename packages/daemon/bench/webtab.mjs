// The web-tab proxy: GETs through the same-origin mirror on the TCP listener (with the
// bearer token, as a logged-in browser) against the same upstream reached directly and
// through a bare Fastify with @fastify/reply-from (the library alone), in alternating
// rounds. Two upstreams: node:http answering 2 KiB (the cheapest server there is, so the
// proxy's whole cost shows) and a real Vite dev server serving a transformed module (what
// a web tab frames). All servers share the server CPU, so the ratios count every hop.
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import autocannon from 'autocannon'
import { alternate, capacityRatio, fmt, onInterrupt, percentile, report, spawnServer, startDaemon, stopChild } from './harness.mjs'

const UPSTREAM = fileURLToPath(new URL('./webtab-upstream.mjs', import.meta.url))
const BARE_PROXY = fileURLToPath(new URL('./webtab-bare-proxy.mjs', import.meta.url))
const exec = promisify(execFile)
const SEQUENTIAL = 2000

/** A server of the bench as a child on the server CPU; resolves with its pid and what it sent over IPC. */
async function startChild(script, args) {
  const child = spawnServer([script, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const sent = await new Promise((resolve, reject) => (child.once('message', resolve), child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))))
  const stop = onInterrupt(() => stopChild(child))
  return { pid: child.pid, sent, stop }
}

/** A session for the web tabs: a repository of one commit, an agent that idles. */
async function webSession(daemon) {
  const repo = `${daemon.home}/repo`
  const git = (...args) => exec('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: repo })
  await exec('mkdir', ['-p', repo])
  await git('init', '-q', '-b', 'main')
  await git('commit', '-q', '--allow-empty', '-m', 'bench')
  return (await daemon.client.call('CreateSession', { repo_path: repo, title: 'web', program: 'sleep 100000' })).instance.id
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

/** Direct, through bare reply-from and through svc, on one upstream (`kind` of webtab-upstream.mjs). */
async function compareOn(kind, title, daemon, sessionId, auth) {
  const upstream = await startChild(UPSTREAM, [kind])
  const { port, path } = upstream.sent
  const bare = await startChild(BARE_PROXY, [String(port)])
  try {
    const tab = await daemon.client.call('CreateTab', { id: sessionId, title: 'web', kind: 'web', port })
    const targets = {
      direct: { url: `http://127.0.0.1:${port}${path}`, headers: {}, pids: [upstream.pid] },
      library: { url: `http://127.0.0.1:${bare.sent}${path}`, headers: {}, pids: [upstream.pid, bare.pid] },
      svc: { url: `http://${auth.addr}/v1/webtab/${sessionId}/${tab.id}${path}`, headers: auth.headers, pids: [upstream.pid, daemon.pid] },
    }
    const figures = await alternate(targets, ({ url, headers }, seconds) => rps(url, headers, seconds))
    for (const [name, { url, headers }] of Object.entries(targets)) figures[name].times = await sequential(url, headers, SEQUENTIAL)
    const rate = (name) => figures[name].rps
    const capacity = (name, base) => capacityRatio(figures[name], figures[base])
    const row = (name) => `${fmt.rps(rate(name))}  ${fmt.us(figures[name].cpuUs)} server CPU/req  ${fmt.spread(figures[name].times)}`
    report(`GET ${path} of a web tab on ${title}: through /v1/webtab/ on the TCP listener vs the upstream directly`, [
      ['upstream directly', row('direct')],
      ['bare Fastify + @fastify/reply-from', row('library')],
      ['through the svc proxy', row('svc')],
      ['throughput ratio to direct', fmt.ratio(rate('svc') / rate('direct'), '>= 0.80')],
      ['throughput per server CPU, ratio to direct', capacity('svc', 'direct').toFixed(2)],
      ['svc to bare reply-from: throughput, per server CPU', `${(rate('svc') / rate('library')).toFixed(2)}, ${capacity('svc', 'library').toFixed(2)}`],
      ['p99 ratio to direct', (percentile(figures.svc.times, 99) / percentile(figures.direct.times, 99)).toFixed(2)],
    ])
  } finally {
    await bare.stop()
    await upstream.stop()
  }
}

export async function run() {
  const daemon = await startDaemon({ config: { network: { listen_addr: '127.0.0.1:0' } } })
  try {
    const sessionId = await webSession(daemon)
    const token = (await readFile(daemon.paths.token, 'utf8')).trim()
    const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
    const auth = { addr, headers: { authorization: `Bearer ${token}` } }
    await compareOn('node', 'node:http answering 2 KiB', daemon, sessionId, auth)
    await compareOn('vite', 'a Vite dev server (a 2 KiB module, served transformed with its inline source map: 20 KiB)', daemon, sessionId, auth)
  } finally {
    await daemon.stop()
  }
}
