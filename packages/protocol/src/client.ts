import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { UnreachableError } from './client-errors.js'
import { eventFeed, type EventsOptions } from './event-feed.js'
import type { FeedFrame } from './events.js'
import { routeNamed, type RequestOf, type ResponseOf, type RouteName } from './routes/index.js'
import { CLIENT_VERSION_HEADER, SVC_VERSION } from './version.js'
import type { ClientTarget } from './plane-socket.js'
import { decodeEnvelope, decodeReply } from './reply.js'
import { CONFIG_ASSISTANT_PATH, configAssistantStreamPath, type ConfigAssistantAnswer } from './config-assistant.js'
import { AGENT_SERVER_PUSH_PATH, type AgentServerPushAnswer } from './agent-server.js'
import { loginStreamPath, openStream, streamPath, type StreamOptions, type TerminalStream } from './stream-client.js'

export { DaemonError, UnreachableError } from './client-errors.js'
export type { ClientTarget } from './plane-socket.js'

export interface ClientOptions {
  /** Sent as `X-SVC-Client-Version`; defaults to this package's version. */
  clientVersion?: string
  timeoutMs?: number
}

export interface RawResponse {
  status: number
  headers: IncomingHttpHeaders
  text: string
}

export interface Client {
  call<N extends RouteName>(name: N, body?: RequestOf<N>): Promise<ResponseOf<N>>
  raw(method: string, path: string, body?: string | Buffer, headers?: Record<string, string>): Promise<RawResponse>
  /** The event feed (`GET /v1/events`): typed frames, reconnecting after a drop. */
  events(options?: EventsOptions): AsyncGenerator<FeedFrame>
  /** Subscribes to a session tab's terminal (`session` is an id, or a title). */
  stream(session: string, options?: StreamOptions): Promise<TerminalStream>
  /** The terminal of the account's running login (AccountLogin starts it). */
  loginStream(agent: string, name: string, since?: bigint): Promise<TerminalStream>
  /** The config assistant, beside the catalog. */
  configAssistant: ConfigAssistantClient
  /** What only an agent server (`svc agent-server`) serves, beside the catalog. */
  agentServer: AgentServerClient
  readonly target: ClientTarget
}

export interface ConfigAssistantClient {
  /** Spawns or reuses the assistant; answers once its brief is delivered. */
  open(): Promise<ConfigAssistantAnswer>
  /** Subscribes to the running assistant's terminal. */
  stream(since?: bigint): Promise<TerminalStream>
  /** Reaps the assistant (none running is fine). */
  reap(): Promise<{ ok: true }>
}

export interface AgentServerClient {
  /** Commits uncommitted work as a snapshot and pushes HEAD to `branch` of the workspace's origin. */
  push(branch: string, unsavedOnly?: boolean): Promise<AgentServerPushAnswer>
}

export function createClient(target: ClientTarget, options: ClientOptions = {}): Client {
  const baseHeaders: Record<string, string> = {
    [CLIENT_VERSION_HEADER]: options.clientVersion ?? SVC_VERSION,
  }
  if ('url' in target && target.token) baseHeaders.authorization = `Bearer ${target.token}`
  const where = 'socketPath' in target ? target.socketPath : target.url

  function raw(method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}, retried = false): Promise<RawResponse> {
    return new Promise<RawResponse>((resolve, reject) => {
      const endpoint =
        'socketPath' in target
          ? { socketPath: target.socketPath, path }
          : (() => {
              const url = new URL(path, target.url)
              return { host: url.hostname, port: url.port, path: url.pathname + url.search }
            })()
      const req = httpRequest({
        ...endpoint,
        method,
        headers: {
          ...baseHeaders,
          ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
          ...headers,
        },
        timeout: options.timeoutMs ?? 120_000,
      })
      req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })))
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the daemon closed while it sat idle fails before any answer (the
        // request never reached it): sent once more, on a new socket.
        if (!retried && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          return resolve(raw(method, path, body, headers, true))
        }
        reject(new UnreachableError(`cannot reach the daemon at ${where}: ${error.message}`, error.code))
      })
      req.on('response', (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', reject)
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        )
      })
      req.end(body)
    })
  }

  async function call<N extends RouteName>(name: N, body?: RequestOf<N>): Promise<ResponseOf<N>> {
    const route = routeNamed(name)
    const res = await raw(route.method, route.path, route.method === 'GET' ? undefined : JSON.stringify(body ?? {}))
    return decodeReply(name, res.status, res.text)
  }

  return {
    call,
    raw,
    target,
    events: (eventOptions = {}) => eventFeed(target, baseHeaders, eventOptions),
    stream: (session, streamOptions) => openStream(target, baseHeaders, streamPath(session, streamOptions)),
    loginStream: (agent, name, since) => openStream(target, baseHeaders, loginStreamPath(agent, name, since)),
    configAssistant: {
      open: async () => {
        const res = await raw('POST', CONFIG_ASSISTANT_PATH, '{}')
        return decodeEnvelope<ConfigAssistantAnswer>('config-assistant', res.status, res.text)
      },
      stream: (since) => openStream(target, baseHeaders, configAssistantStreamPath(since)),
      reap: async () => {
        const res = await raw('DELETE', CONFIG_ASSISTANT_PATH)
        return decodeEnvelope<{ ok: true }>('config-assistant', res.status, res.text)
      },
    },
    agentServer: {
      push: async (branch, unsavedOnly = false) => {
        const res = await raw('POST', AGENT_SERVER_PUSH_PATH, JSON.stringify({ branch, ...(unsavedOnly ? { unsaved_only: true } : {}) }))
        return decodeEnvelope<AgentServerPushAnswer>('agent-server push', res.status, res.text)
      },
    },
  }
}
