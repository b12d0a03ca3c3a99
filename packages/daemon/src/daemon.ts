import { existsSync } from 'node:fs'
import { mkdir, unlink, writeFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { checkSocketPath, resolveServiceHome, servicePaths, SVC_VERSION, type ServicePaths } from '@svc/protocol'
import { Config, Core, defaultSettings, exposureWarning, reclaimHome, shiftedClock, systemClock, type Clock, type Settings } from '@svc/core'
import { buildApp, type App } from './app.js'
import type { AgentServerInfo, ListenerReport } from './routes/health.js'
import { listenUnix, TcpListener } from './listeners.js'
import { DaemonLog, type Rotation } from './log.js'
import { acquireDaemonLock } from './singleton.js'
import { ensureToken } from './token.js'
import { PreviewOrigins } from './webtab/origins.js'
import { buildPreviewApp } from './webtab/preview-app.js'

export interface RunningDaemon {
  paths: ServicePaths
  core: Core
  app: App
  /** The listeners as Health reports them. */
  listeners(): ListenerReport
  /** The TCP listener's bearer token (daemon-token). */
  token: string
  /** Settles when warm-up ends: restored (phase ready) or failed. */
  restored: Promise<void>
  stop(): Promise<void>
}

function rotationOf(settings: Pick<Settings, 'log_max_size_mb' | 'log_max_backups'>): Rotation {
  return { maxSizeMb: settings.log_max_size_mb, maxBackups: settings.log_max_backups }
}

/**
 * Test hook: SVC_CLOCK_START (RFC 3339) starts the daemon's wall clock at that instant,
 * so schedules can be exercised through the real scheduler in seconds.
 */
function clockFrom(env: NodeJS.ProcessEnv): Clock {
  const start = env.SVC_CLOCK_START
  if (!start) return systemClock
  const at = new Date(start)
  if (Number.isNaN(at.getTime())) throw new Error(`SVC_CLOCK_START=${start} is not a timestamp`)
  return shiftedClock(at)
}

/** Test hook: SVC_CONFIG_ASSISTANT_IDLE_MS shortens the config assistant's 60 s idle time. */
function assistantIdleFrom(env: NodeJS.ProcessEnv): number | undefined {
  const idle = env.SVC_CONFIG_ASSISTANT_IDLE_MS
  if (!idle) return undefined
  if (!/^\d+$/.test(idle)) throw new Error(`SVC_CONFIG_ASSISTANT_IDLE_MS=${idle} is not a number of milliseconds`)
  return Number(idle)
}

/**
 * Test hook: while the file named by SVC_RESTORE_GATE exists, the core holds between
 * restoring its state and turning ready, so a test sees the 503 answers of a daemon that
 * has really restored, then that state in the first answer after the gate opens.
 */
async function restoreGate(env: NodeJS.ProcessEnv): Promise<void> {
  const gate = env.SVC_RESTORE_GATE
  while (gate && existsSync(gate)) await sleep(25)
}

export interface StartOptions {
  /** SERVICE_HOME, instead of the one the environment names. */
  home?: string
  /** Settings that hold for this run over config.json (see Config.load). */
  pinned?: Partial<Settings>
  /** Serving as `svc agent-server`: Health reports its workspace. */
  agentServer?: AgentServerInfo
}

/**
 * Start-up, in order: resolve SERVICE_HOME, take the singleton lock, clear what a killed
 * daemon left (locks, temp files), load config, bind the sockets, write daemon.pid, then
 * restore state (phase warming, then ready).
 */
export async function startDaemon(env: NodeJS.ProcessEnv = process.env, options: StartOptions = {}): Promise<RunningDaemon> {
  const paths = servicePaths(options.home ?? resolveServiceHome(env))
  checkSocketPath(paths.socket)
  await mkdir(paths.home, { recursive: true, mode: 0o700 })
  const lock = await acquireDaemonLock(paths.lock, paths.home)
  const cleanups: Array<() => Promise<void> | void> = [() => lock.release()]
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step()
  }
  try {
    const daemonLog = new DaemonLog(paths.log, rotationOf(defaultSettings()))
    cleanups.push(() => daemonLog.close())
    const log = daemonLog.logger
    const reclaimed = await reclaimHome(paths)
    if (reclaimed.locks.length + reclaimed.tempFiles.length > 0) {
      log.warn({ locks: reclaimed.locks, temp_files: reclaimed.tempFiles }, 'removed locks and temp files a previous daemon left')
    }
    let config: Config
    try {
      config = await Config.load(paths.config, options.pinned)
    } catch (error) {
      log.fatal({ err: error }, 'cannot load config')
      throw error
    }
    daemonLog.rotate(rotationOf(config.all()))
    for (const warning of config.loadWarnings) log.warn(`${paths.config}: ${warning}`)
    const token = await ensureToken(paths.token)
    const core = new Core(paths, config, log, clockFrom(env), process.env, assistantIdleFrom(env))
    if (options.agentServer) core.resolver.judgedElsewhere(options.agentServer.workspace)
    cleanups.push(() => core.close())
    // Closed in reverse: the socket file goes once its server has stopped.
    /** Removes a file this daemon made; already gone is fine (a failed start may not have made it). */
    const removeOwn = (path: string) => () =>
      unlink(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') log.warn({ err: error, file: path }, 'could not remove a file at stop')
      })
    cleanups.push(removeOwn(paths.socket))

    let tcp: TcpListener | undefined
    let preview: TcpListener | undefined
    const off = { configured: false, bound: false, addr: '' }
    // One report object until a listener changes: Health re-encodes only then.
    let report: ListenerReport = { unixBound: false, tcp: off, preview: off }
    const reportListeners = (unixBound = report.unixBound) => {
      report = { unixBound, tcp: tcp?.status() ?? report.tcp, preview: preview?.status() ?? report.preview }
    }
    const origins = new PreviewOrigins(core.sessions)
    const app = await buildApp({
      core,
      log,
      token,
      listeners: () => report,
      previews: { origins, port: () => preview?.port() },
      ...(options.agentServer ? { agentServer: options.agentServer } : {}),
    })
    // The socket's server stops after Fastify, whose close ends what the WebSocket plugin still holds.
    let closeUnix = async () => {}
    cleanups.push(() => closeUnix())
    cleanups.push(() => app.fastify.close())
    const previewApp = await buildPreviewApp(core, origins, log)
    cleanups.push(() => previewApp.fastify.close())
    tcp = new TcpListener('tcp', app.handler, app.upgrade, log)
    preview = new TcpListener('preview', previewApp.handler, previewApp.upgrade, log)
    const [network, previews] = [tcp, preview]
    cleanups.push(() => network.close(), () => previews.close())
    // First of all: a listener's close would wait on every WebSocket a client keeps open.
    cleanups.push(() => Promise.all([app.closeWebSockets(), previewApp.closeWebSockets()]).then(() => {}))

    closeUnix = await listenUnix(app.server, paths.socket)
    // A failed bind is logged and reported by Health; the daemon serves on its socket regardless.
    await network.bind(config.get('network.listen_addr')).catch(() => {})
    await previews.bind(config.get('network.preview_listen_addr')).catch(() => {})
    reportListeners(true)
    const exposure = exposureWarning(config.all())
    if (exposure) log.warn(exposure)

    config.onChange(async (next, _previous, key) => {
      // Writing the key again retries a bind that failed.
      if (key === 'network.listen_addr') await network.bind(next['network.listen_addr']).finally(() => reportListeners())
      if (key === 'network.preview_listen_addr') await previews.bind(next['network.preview_listen_addr']).finally(() => reportListeners())
      const warning = exposureWarning(next)
      if (warning) log.warn(warning)
    })
    config.onChange((next) => daemonLog.rotate(rotationOf(next)))

    await writeFile(paths.pid, `${process.pid}\n`)
    cleanups.push(removeOwn(paths.pid))
    log.info({ version: SVC_VERSION, socket: paths.socket, boot_id: core.bootId }, 'daemon started')

    const restored = core.restore(() => restoreGate(env))
    let stopping: Promise<void> | undefined
    return {
      paths,
      core,
      app,
      listeners: () => report,
      token,
      restored,
      stop: () => {
        stopping ??= (async () => {
          log.info('daemon stopping')
          await cleanup()
        })()
        return stopping
      },
    }
  } catch (error) {
    await cleanup()
    throw error
  }
}
