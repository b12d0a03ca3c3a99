import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import {
  checkSocketPath,
  DAEMON_EXIT,
  createClient,
  resolveServiceHome,
  servicePaths,
  UnreachableError,
  type Client,
  type ResponseOf,
  type ServicePaths,
} from '@svc/protocol'
import { awayClient, awayDaemon } from './daemon-target.js'
import { ERROR_LEVEL, logEntry, logTail } from './log-tail.js'

/** How much of daemon.log is searched for why a start failed. */
const LOG_LINES_READ = 200
const LOG_BYTES_READ = 256 * 1024

export function resolvePaths(): ServicePaths {
  const paths = servicePaths(resolveServiceHome(process.env))
  checkSocketPath(paths.socket)
  return paths
}

export function socketClient(paths: ServicePaths): Client {
  return createClient({ socketPath: paths.socket })
}

/** The running daemon's health, or undefined when nothing answers on the socket. */
export async function probe(paths: ServicePaths): Promise<ResponseOf<'Health'> | undefined> {
  if (!existsSync(paths.socket)) return undefined
  try {
    return await createClient({ socketPath: paths.socket }, { timeoutMs: 5_000 }).call('Health')
  } catch (error) {
    if (error instanceof UnreachableError && ['ENOENT', 'ECONNREFUSED'].includes(error.code ?? '')) return undefined
    throw error
  }
}

/** The daemon's entry point: beside the CLI in the portable svc (scripts/pack-svc.mjs), else as its package exports it. */
export function daemonEntry(): string {
  const bundled = fileURLToPath(new URL('daemon.mjs', import.meta.url))
  return existsSync(bundled) ? bundled : createRequire(import.meta.url).resolve('@svc/daemon/main')
}

/**
 * Starts the daemon in the background and waits until its socket answers. A daemon that
 * exits first is reported with what it printed.
 */
export async function spawnDaemon(paths: ServicePaths, timeoutMs = 20_000): Promise<ResponseOf<'Health'>> {
  const child = spawn(process.execPath, [daemonEntry()], {
    cwd: '/',
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: process.env,
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  let exited: number | null | undefined
  child.on('exit', (code) => (exited = code))
  const deadline = Date.now() + timeoutMs
  try {
    while (Date.now() < deadline) {
      // A daemon still binding may refuse or time out a probe: it gets until the deadline.
      const health = await probe(paths).catch(() => undefined)
      if (health) return health
      // Another daemon won the singleton lock and is still binding: keep waiting for it.
      if (exited !== undefined && exited !== DAEMON_EXIT.alreadyRunning) {
        const said = stderr.trim() || (await lastLogError(paths)) || `exit code ${exited}`
        throw new UnreachableError(`the daemon failed to start: ${said}`, 'EXITED')
      }
      await sleep(50)
    }
    throw new UnreachableError(`the daemon did not answer on ${paths.socket} within ${timeoutMs / 1000}s`, 'ETIMEDOUT')
  } finally {
    child.stderr?.destroy()
    child.unref()
  }
}

async function lastLogError(paths: ServicePaths): Promise<string | undefined> {
  const entries = (await logTail(paths.log, LOG_LINES_READ, LOG_BYTES_READ)).map(logEntry).reverse()
  const fatal = entries.find((entry) => (entry?.level ?? 0) >= ERROR_LEVEL)
  return fatal ? [fatal.msg, fatal.err?.message].filter(Boolean).join(': ') : undefined
}

/**
 * A client to a daemon that is running, started on demand when its socket is absent or
 * dead; the daemon on another machine instead when this run was given one (--daemon-url).
 */
export async function connect(paths: ServicePaths): Promise<Client> {
  const elsewhere = awayDaemon()
  if (elsewhere) return awayClient(elsewhere)
  if (!(await probe(paths))) await spawnDaemon(paths)
  return socketClient(paths)
}
