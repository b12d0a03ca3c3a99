import { formatListenAddress, parseListenAddress, resolveRepository } from '@svc/core'
import { startDaemon } from './daemon.js'
import { serveInForeground } from './foreground.js'

export interface AgentServerOptions {
  /** Its own SERVICE_HOME, never the user's. */
  home: string
  /** A directory inside the git checkout it serves. */
  workspace: string
  /** Its TCP listener, host:port. */
  listen: string
}

/** Where a home daemon reaches the agent server. */
export interface AgentServerEndpoint {
  url: string
  token: string
}

/** A workspace or listen address the agent server cannot serve; nothing was started. */
export class AgentServerOptionError extends Error {}

/** A wildcard bind answers on loopback, which is where the printed URL points. */
function urlOf(boundAddr: string): string {
  const { host, port } = parseListenAddress(boundAddr)
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  return `http://${formatListenAddress({ host: reachable, port })}`
}

/**
 * `svc agent-server`: an ordinary daemon in the foreground, on its own home, whose TCP
 * listener and token rule are pinned over its config (the printed URL stays valid and
 * always wants the token), serving one workspace, registered as its project. Settles
 * with the endpoint once the daemon is ready; SIGTERM or SIGINT stop it as they stop
 * the daemon.
 */
export async function startAgentServer(options: AgentServerOptions): Promise<AgentServerEndpoint> {
  try {
    parseListenAddress(options.listen)
  } catch (error) {
    throw new AgentServerOptionError(`--listen: ${(error as Error).message}`)
  }
  const repo = await resolveRepository(options.workspace).catch((error: Error) => {
    throw new AgentServerOptionError(`--workspace: ${error.message}`)
  })
  const daemon = await startDaemon(process.env, {
    home: options.home,
    pinned: { 'network.listen_addr': options.listen, 'network.require_token': true, 'network.require_loopback_token': true },
    agentServer: { workspace: repo.root },
  })
  await serveInForeground(daemon, 'svc agent-server')
  // Stopped once ready: nothing of a restore in flight outlives the stop.
  const { tcp } = daemon.listeners()
  if (!tcp.bound) {
    await daemon.stop()
    throw new Error(tcp.error ?? `cannot listen on ${options.listen}`)
  }
  await daemon.core.projects.register(repo.root)
  return { url: urlOf(tcp.addr), token: daemon.token }
}
