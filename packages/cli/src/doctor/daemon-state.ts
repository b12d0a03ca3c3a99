import { existsSync } from 'node:fs'
import { SVC_VERSION, type ResponseOf, type ServicePaths } from '@svc/protocol'
import { probe } from '../daemon-process.js'
import { ERROR_LEVEL, logEntry, logTail } from '../log-tail.js'
import { fail, note, pass, type Check } from './check.js'

/** The running daemon's health, or why none answers. */
export type DaemonState = { health: ResponseOf<'Health'> } | { down: string }

/** Asks the socket only: doctor never starts the daemon. */
export async function daemonState(paths: ServicePaths): Promise<DaemonState> {
  try {
    const health = await probe(paths)
    return health ? { health } : { down: existsSync(paths.socket) ? 'the socket a daemon that ended left; the next start removes it' : 'no socket' }
  } catch (error) {
    return { down: `the socket does not answer (${(error as Error).message})` }
  }
}

function listenersOf({ listeners }: ResponseOf<'Health'>): string {
  const tcp = listeners.tcp_bound ? `tcp ${listeners.tcp_bound_addr}` : listeners.tcp_configured ? `tcp not bound (${listeners.tcp_error ?? 'unknown'})` : 'tcp off'
  return [listeners.http_unix_bound ? 'unix socket' : 'unix socket not bound', tcp].join(', ')
}

/** The last entry of daemon.log, when it is a daemon's last words (a crash or a failed start). */
async function lastFailure(paths: ServicePaths): Promise<string | undefined> {
  const last = logEntry((await logTail(paths.log, 1, 64 * 1024))[0] ?? '')
  if ((last?.level ?? 0) < ERROR_LEVEL) return undefined
  const when = last?.time ? ` at ${new Date(last.time).toISOString()}` : ''
  return `${[last?.msg, last?.err?.message].filter(Boolean).join(': ')}${when}`
}

export async function daemonCheck(paths: ServicePaths, state: DaemonState): Promise<Check> {
  if ('health' in state) {
    const { health } = state
    const detail = `running, pid ${health.pid}, version ${health.version}, phase ${health.phase}; ${listenersOf(health)}`
    if (health.version !== SVC_VERSION) {
      return fail('daemon', `${detail}; this svc is ${SVC_VERSION}`, 'restart it so the two match: svc daemon stop && svc daemon start')
    }
    if (health.listeners.tcp_configured && !health.listeners.tcp_bound) {
      return fail('daemon', detail, 'another program holds network.listen_addr: svc config set network.listen_addr 127.0.0.1:<free port>')
    }
    return health.phase === 'ready' ? pass('daemon', detail) : note('daemon', detail, 'it is restoring sessions; ask again shortly')
  }
  const failure = await lastFailure(paths)
  if (failure) {
    return fail('daemon', `not running (${state.down}); its log ends with: ${failure}`, 'see svc daemon logs, and report it with svc bug-report')
  }
  return note('daemon', `not running (${state.down})`, 'any svc command starts it (svc daemon start)')
}
