import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Value } from 'typebox/value'
import { createClient, routeAt, routeNamed, servicePaths, Session, Task, type Client, type FeedFrame, type Route, type ServicePaths } from '@svc/protocol'
import { removeNamespaces, type Place } from './netns.js'
import { waitFor } from './wait.js'

/** The built entries, as their packages export them: integration tests run what users run. */
export const DAEMON_MAIN = createRequire(import.meta.url).resolve('@svc/daemon/main')
export const CLI_MAIN = createRequire(import.meta.url).resolve('@svc/cli')

/** Short on purpose: Unix socket paths are capped at 107 bytes. */
export function tempDir(): Promise<string> {
  return mkdtemp('/tmp/svc-')
}

/** Temporary homes for one test file; `release` (in afterEach) stops their daemons and removes them. */
export function tempHomes() {
  const dirs: string[] = []
  return {
    make: async (): Promise<string> => {
      const dir = await tempDir()
      dirs.push(dir)
      return dir
    },
    /** Adopts a directory made elsewhere, such as a started daemon's home. */
    keep: (dir: string): void => {
      dirs.push(dir)
    },
    release: () => cleanup(...dirs.splice(0)),
  }
}

export interface Reply {
  status: number
  headers: IncomingHttpHeaders
  text: string
  json: any
}

export type Target = { socketPath: string } | { host: string; port: number }

/**
 * A raw HTTP request with full control of headers: no client-version header unless
 * given, `Content-Type: application/json` with a body unless another is given. Like a well-behaved HTTP/1.1 client, it stops uploading once the server has
 * answered (a 413 arrives before the body is all sent).
 */
export function send(
  target: Target,
  method: string,
  path: string,
  options: { body?: string | Buffer; headers?: Record<string, string | number>; agent?: Agent } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let answered = false
    const headers = { ...options.headers }
    const named = (header: string) => Object.keys(headers).some((name) => name.toLowerCase() === header)
    if (options.body !== undefined && !named('transfer-encoding')) headers['content-length'] = Buffer.byteLength(options.body)
    // The daemon takes JSON only; a test sends another type by naming it.
    if (options.body !== undefined && !named('content-type')) headers['content-type'] = 'application/json'
    // Keep-alive, as real clients are: with `Connection: close` the server must hang up
    // right after an early answer, racing the upload. A connection of its own unless the
    // test gives one (a `connection()`) to send several requests on.
    const agent = options.agent ?? new Agent({ keepAlive: true })
    const req = httpRequest({ ...target, method, path, headers, agent })
    if (options.agent === undefined) req.on('close', () => agent.destroy())
    req.on('error', (error: NodeJS.ErrnoException) => {
      // The server closing the connection on an early answer is not a failure of the request.
      if (!(answered && (error.code === 'EPIPE' || error.code === 'ECONNRESET'))) reject(error)
    })
    req.on('response', (res) => {
      answered = true
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        try {
          checkReply(method, path, res.statusCode ?? 0, text)
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)))
          return
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: jsonOf(text) })
      })
    })
    void upload(req, options.body, () => answered)
  })
}

/** One kept-alive connection for `send` to reuse (`destroy()` it when done): a peer the daemon can tell from others. */
export function connection(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 1 })
}

// ---------------------------------------------------------------- response shapes

/**
 * The one place where every answer a test gets is held against its route's response
 * schema (the typed client and raw `send` both come through here), so a drifting shape
 * fails the test that saw it instead of reaching a client.
 */
function checkData(route: Route, data: unknown, text: string): void {
  if (Value.Check(route.response, data)) return
  const problems = Value.Errors(route.response, data)
    .slice(0, 5)
    .map((error) => `${error.instancePath || '(root)'} ${error.message}`)
  throw new Error(`${route.name} answered a shape its response schema refuses: ${problems.join('; ')}\n${text.slice(0, 1000)}`)
}

/** A raw answer: only a 200 of a known route's own verb carries that route's `data`. */
export function checkReply(method: string, path: string, status: number, text: string): void {
  const route = routeAt(path.split('?')[0] as string)
  if (route === undefined || route.method !== method.toUpperCase() || status !== 200) return
  checkData(route, (jsonOf(text) as { data?: unknown } | undefined)?.data, text)
}

/** Session and task frames carry the objects Snapshot and ListTasks answer: held to the same schemas. */
function checkFrame(frame: FeedFrame): void {
  const schema = /^session\.(created|updated|archived|restored)$/.test(frame.type) ? Session : /^task\.(created|updated)$/.test(frame.type) ? Task : undefined
  if (schema === undefined || Value.Check(schema, (frame as { data?: unknown }).data)) return
  const problems = Value.Errors(schema, (frame as { data?: unknown }).data).slice(0, 5).map((error) => `${error.instancePath || '(root)'} ${error.message}`)
  throw new Error(`a ${frame.type} frame carries a shape its schema refuses: ${problems.join('; ')}`)
}

/** The typed client, with every answer checked; `raw` answers and event frames too. */
export function checkedClient(client: Client): Client {
  return {
    target: client.target,
    async call(name, body) {
      const data = await client.call(name, body)
      checkData(routeNamed(name), data, JSON.stringify(data))
      return data
    },
    async raw(method, path, body, headers) {
      const answer = await client.raw(method, path, body, headers)
      checkReply(method, path, answer.status, answer.text)
      return answer
    },
    async *events(options) {
      for await (const frame of client.events(options)) {
        checkFrame(frame)
        yield frame
      }
    },
    stream: (session, options) => client.stream(session, options),
    loginStream: (agent, name, since) => client.loginStream(agent, name, since),
    configAssistant: client.configAssistant,
    agentServer: client.agentServer,
  }
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Writes `bytes` as they are on a fresh connection, such as a request line no HTTP
 * client would send, and reads the answer; resolves once the server closes the connection.
 */
export function sendRaw(target: Target, bytes: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const socket = 'socketPath' in target ? connect(target.socketPath) : connect(target.port, target.host)
    let raw = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (raw += chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const [head = '', text = ''] = raw.split(/\r\n\r\n(.*)/s)
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      )
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text, json: jsonOf(text) })
    })
    // Not ended from this side: the close has to come from the server.
    socket.write(bytes)
  })
}

async function upload(req: ReturnType<typeof httpRequest>, body: string | Buffer | undefined, answered: () => boolean) {
  const bytes = body === undefined ? Buffer.alloc(0) : Buffer.from(body)
  const chunk = 256 * 1024
  for (let at = 0; at < bytes.length && !answered() && !req.destroyed; at += chunk) {
    if (!req.write(bytes.subarray(at, at + chunk))) await new Promise((resolve) => req.once('drain', resolve).once('close', resolve))
  }
  if (!req.destroyed) req.end()
}

export interface DaemonOptions {
  /** Written to config.json before start; the TCP listener is off unless this sets it. */
  config?: Record<string, unknown>
  env?: Record<string, string>
  home?: string
  /** The daemon's working directory; relative paths in requests resolve against it. */
  cwd?: string
  /** Wait for phase ready (default) or only for the socket to answer. */
  waitReady?: boolean
  /** Where it runs (`makePlace()`): another machine's network, its files still here. */
  place?: Place
}

export interface TestDaemon {
  home: string
  paths: ServicePaths
  process: ChildProcess
  /** The typed client (lenient, like the CLI). */
  client: Client
  socket: Target
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>
  stderr(): string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

const running = new Set<TestDaemon>()
/** Homes whose private tmux server must go when the test is done: it outlives its daemon. */
const tmuxHomes = new Set<string>()

export async function startDaemon(options: DaemonOptions = {}): Promise<TestDaemon> {
  const home = options.home ?? (await tempDir())
  const paths = servicePaths(home)
  await mkdir(home, { recursive: true })
  if (!existsSync(paths.config) || options.config) {
    await writeFile(paths.config, JSON.stringify(options.config ?? { network: { listen_addr: '' } }))
  }
  const child = (options.place?.spawn ?? spawn)(process.execPath, [DAEMON_MAIN], {
    cwd: options.cwd,
    env: { ...process.env, SERVICE_HOME: home, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  child.stdout?.resume()
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const socket = { socketPath: paths.socket }
  const daemon: TestDaemon = {
    home,
    paths,
    process: child,
    client: checkedClient(createClient(socket)),
    socket,
    post: (path, body, headers = {}) =>
      send(socket, 'POST', path, { body: body === undefined ? undefined : JSON.stringify(body), headers }),
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      running.delete(daemon)
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill(signal)
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      const code = await exited
      clearTimeout(timer)
      return code
    },
  }
  running.add(daemon)
  tmuxHomes.add(home)
  // A daemon that dies on its own (not stopped, not signalled) is a crash: its last words go to the test's output.
  child.once('exit', (code) => {
    if (running.has(daemon) && code !== null && code !== 0) process.stderr.write(`[test-kit] the daemon at ${home} exited with ${code} while in use:\n${stderr.slice(-4000)}\n`)
  })
  const deadline = Date.now() + 40_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}: ${stderr}`)
    if (Date.now() > deadline) throw new Error(`daemon did not come up: ${stderr}`)
    const health = existsSync(paths.socket) ? await daemon.client.call('Health').catch(() => undefined) : undefined
    if (health && (options.waitReady === false || health.phase === 'ready')) return daemon
    await sleep(20)
  }
}

/** Stops a daemon the CLI started in the background under `home`, if any. */
async function stopDetached(home: string): Promise<void> {
  const pid = Number.parseInt(await readFile(servicePaths(home).pid, 'utf8').catch(() => ''), 10)
  if (!Number.isInteger(pid)) return
  try {
    process.kill(pid, 'SIGTERM')
  } catch {
    return
  }
  await waitFor(() => {
    try {
      process.kill(pid, 0)
      return undefined
    } catch {
      return true
    }
  })
}

function killTmuxServer(home: string): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('tmux', ['-S', servicePaths(home).tmuxSocket, 'kill-server'], { stdio: 'ignore' })
    child.on('close', () => resolve())
    child.on('error', () => resolve())
  })
}

/** Stops every daemon a test left running, their tmux servers, takes down its network namespaces, and removes the given directories. */
export async function cleanup(...dirs: string[]): Promise<void> {
  await Promise.all([...running].map((daemon) => daemon.stop()))
  await removeNamespaces()
  await Promise.all(dirs.map((dir) => stopDetached(dir)))
  const homes = [...tmuxHomes, ...dirs]
  tmuxHomes.clear()
  await Promise.all(homes.map(killTmuxServer))
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
}

/** The lines of an appended file read so far: a last line still being written is left for a later read. */
export async function completeLines(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8')
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter(Boolean)
}

/** The daemon's log entries so far, parsed. */
export async function logEntries(daemon: Pick<TestDaemon, 'paths'>): Promise<Array<Record<string, unknown>>> {
  return (await completeLines(daemon.paths.log)).map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** The daemon's log once it shows `pattern`: the log is written asynchronously, so a line may land after the reply it follows. */
export function logShowing(daemon: Pick<TestDaemon, 'paths'>, pattern: string | RegExp, timeoutMs?: number): Promise<string> {
  const shows = (text: string) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text))
  return waitFor(async () => {
    const text = await readFile(daemon.paths.log, 'utf8')
    return shows(text) ? text : undefined
  }, timeoutMs)
}

/** Runs `svc` as a user would; resolves with its exit code and output. */
export function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}
