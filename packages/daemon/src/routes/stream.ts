import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { WebSocket } from 'ws'
import { configAssistantStreamPath, decodeClientFrame, FrameError, StreamClose, streamPath } from '@svc/protocol'
import { InvalidRequest, NotFound, type Core, type RemoteLink, type TerminalTarget } from '@svc/core'
import { HttpError } from '../http-error.js'
import type { StreamHub } from '../stream/hub.js'
import { single } from './query.js'
import { SocketSubscriber } from '../stream/subscriber.js'
import type { Start, Terminal } from '../stream/terminal.js'
import { localStreams, openRemoteStream, relayStream, type RemoteStream, type StreamSourceFor } from '../stream/remote.js'

interface StreamQuery {
  repo_id?: string
  tab?: number
  tab_id?: string
  since?: bigint
}

/** Told when a subscriber joins and leaves (the config assistant counts its watchers). */
interface Watch {
  join(): void
  leave(): void
}

/** The terminal a plane request names, where its subscriber starts, and the session it leases. */
interface Named {
  tmuxName: string
  since: bigint | undefined
  leaseOn?: string
  watch?: Watch
}

/** A subscription planned before the upgrade, joined when the 101 is written. */
type Plan = LocalPlan | RemotePlan

interface LocalPlan {
  kind: 'local'
  terminal: Terminal
  start: Start
  subscriber: SocketSubscriber
  /** The session whose status poll the subscriber pauses while connected (none for a login). */
  lease: { sessionId: string; holder: string } | undefined
  watch: Watch | undefined
}

/** A hook session's stream: the remote's, already open, piped once the client's socket exists. */
interface RemotePlan {
  kind: 'remote'
  remote: RemoteStream
  /** Closes the remote stream should the client's upgrade never complete. */
  abandon: NodeJS.Timeout
}

/**
 * How long the lease taken while a stream is set up holds should its upgrade never
 * complete (once the 101 is written it holds until the socket closes); a remote stream
 * opened for an upgrade that never completes is closed after as long.
 */
const SETUP_LEASE_MS = 5_000

const DIGITS = /^\d{1,20}$/
const MAX_U64 = 2n ** 64n - 1n

export function parseStreamQuery(query: Record<string, unknown>): StreamQuery {
  const parsed: StreamQuery = {}
  const since = single(query, 'since')
  if (since !== undefined) {
    if (!DIGITS.test(since) || BigInt(since) > MAX_U64) throw new HttpError(400, `since must be an unsigned 64-bit cursor, not "${since.slice(0, 40)}"`)
    parsed.since = BigInt(since)
  }
  const tab = single(query, 'tab')
  if (tab !== undefined) {
    if (!/^\d{1,6}$/.test(tab)) throw new HttpError(400, `tab must be a tab's ordinal (0 is the agent), not "${tab.slice(0, 40)}"`)
    parsed.tab = Number(tab)
  }
  const tabId = single(query, 'tab_id')
  if (tabId !== undefined) parsed.tab_id = tabId
  const repoId = single(query, 'repo_id')
  if (repoId !== undefined) parsed.repo_id = repoId
  return parsed
}

/** Core refusals as the envelopes the document lists for the planes (400, 404). */
function refused(error: unknown): never {
  if (error instanceof NotFound) throw new HttpError(404, error.message)
  if (error instanceof InvalidRequest) throw new HttpError(400, error.message)
  throw error
}

function upgradeOnly(request: FastifyRequest): void {
  if (!request.ws) throw new HttpError(400, 'the terminal stream is a WebSocket: send an upgrade request')
}

/** The terminal a session stream request names. */
function targetOf(
  core: Core,
  request: FastifyRequest,
  query = parseStreamQuery(request.query as Record<string, unknown>),
): { target: TerminalTarget; query: StreamQuery } {
  const { id } = request.params as { id: string }
  try {
    const tab = query.tab_id !== undefined ? { id: query.tab_id } : { index: query.tab ?? 0 }
    return { target: core.sessions.terminal(id, query.repo_id, tab), query }
  } catch (error) {
    refused(error)
  }
}

/**
 * The terminal planes, one wire format (defaults.md "Terminal stream"): `GET
 * /v1/sessions/{id}/stream` and `stream-info`, and `GET /v1/accounts/{agent}/{name}/login-stream`,
 * the terminal of an account's running login (served for the web UI, not in the catalog),
 * and `GET /v1/config-assistant/stream`, the config assistant's terminal.
 * Everything that can fail happens before the upgrade, so a refusal is an ordinary
 * envelope; the subscriber joins as the 101 is written, so `X-SVC-Stream-Seq` carries its
 * real start cursor.
 */
export function streamRoutes(core: Core, hub: StreamHub, sourceFor: StreamSourceFor = localStreams) {
  return async (app: FastifyInstance) => {
    const plans = new WeakMap<IncomingMessage, Plan>()
    let holders = 0

    app.websocketServer.on('headers', (headers: string[], request: IncomingMessage) => {
      const plan = plans.get(request)
      if (!plan) return
      if (plan.kind === 'remote') {
        if (plan.remote.startCursor !== undefined) headers.push(`X-SVC-Stream-Seq: ${plan.remote.startCursor}`)
        return
      }
      const cursor = plan.terminal.join(plan.subscriber, plan.start)
      if (plan.lease) core.sessions.leases.hold(plan.lease.sessionId, plan.lease.holder, Infinity)
      plan.watch?.join()
      headers.push(`X-SVC-Stream-Seq: ${cursor}`)
    })

    /** Plans the subscription to the terminal the request names. */
    async function plan(request: FastifyRequest, named: () => Promise<Named>): Promise<void> {
      upgradeOnly(request)
      const { tmuxName, since, leaseOn, watch } = await named()
      // Attaching may resize the window, and redraw the pane with it: the person's doing,
      // not the agent's, so the status poll pauses before the terminal attaches.
      const lease = leaseOn === undefined ? undefined : { sessionId: leaseOn, holder: `stream-${++holders}` }
      if (lease) core.sessions.leases.hold(lease.sessionId, lease.holder, Date.now() + SETUP_LEASE_MS)
      try {
        const terminal = await hub.terminal(tmuxName)
        // A cursor beyond 2^53 loses precision here, but it is past anything the ring has had: the stream starts now.
        const start = await terminal.start(since === undefined ? undefined : Number(since))
        plans.set(request.raw, { kind: 'local', terminal, start, subscriber: new SocketSubscriber(), lease, watch })
      } catch (error) {
        if (lease) core.sessions.leases.release(lease.sessionId, lease.holder)
        throw error
      }
    }

    /** Opens the remote's stream for a hook session; its refusal is this request's. */
    async function planRemote(request: FastifyRequest, link: RemoteLink, query: StreamQuery): Promise<void> {
      const remote = await openRemoteStream(link, query)
      const abandon = setTimeout(() => remote.plane.socket.close(StreamClose.normal), SETUP_LEASE_MS).unref()
      plans.set(request.raw, { kind: 'remote', remote, abandon })
    }

    function subscribe(socket: WebSocket, request: FastifyRequest): void {
      const plan = plans.get(request.raw) as Plan
      plans.delete(request.raw)
      if (plan.kind === 'remote') {
        clearTimeout(plan.abandon)
        return relayStream(socket, plan.remote)
      }
      const { terminal, subscriber, lease, watch } = plan
      subscriber.bind(socket)
      socket.on('close', () => {
        terminal.leave(subscriber)
        if (lease) core.sessions.leases.release(lease.sessionId, lease.holder)
        watch?.leave()
      })
      socket.on('message', (data: Buffer, binary: boolean) => {
        try {
          const frame = decodeClientFrame(binary ? data : data.toString('utf8'))
          if (frame.type === 'detach') return socket.close(StreamClose.normal)
          if (frame.type === 'resize') return terminal.resize(frame.rows, frame.cols)
          try {
            terminal.input(frame.data)
          } catch (error) {
            socket.close(StreamClose.inputFailed, `input failed: ${(error as Error).message}`.slice(0, 120))
          }
        } catch (error) {
          if (error instanceof FrameError) return socket.close(error.code, error.message.slice(0, 120))
          // Thrown from a socket's event, it would take the whole daemon down: this subscriber ends, the daemon runs on.
          request.log.error({ err: error }, 'stream frame failed')
          socket.close(StreamClose.inputFailed, `frame failed: ${(error as Error).message}`.slice(0, 120))
        }
      })
    }

    app.get('/v1/sessions/:id/stream-info', { config: { restored: true } }, async (request) => {
      const { target, query } = targetOf(core, request)
      return { url: streamPath(target.sessionId, { tabId: target.tabId, ...(query.since === undefined ? {} : { since: query.since }) }), local: true }
    })

    app.get(
      '/v1/sessions/:id/stream',
      {
        websocket: true,
        config: { restored: true },
        preValidation: async (request) => {
          upgradeOnly(request)
          const { id } = request.params as { id: string }
          const query = parseStreamQuery(request.query as Record<string, unknown>)
          let link: RemoteLink | undefined
          try {
            link = sourceFor(id, query.repo_id)
          } catch (error) {
            refused(error)
          }
          if (link) return planRemote(request, link, query)
          return plan(request, async () => {
            const { target } = targetOf(core, request, query)
            return { tmuxName: target.tmuxName, since: query.since, leaseOn: target.sessionId }
          })
        },
      },
      subscribe,
    )

    app.get(
      '/v1/accounts/:agent/:name/login-stream',
      {
        websocket: true,
        config: { restored: true },
        preValidation: (request) =>
          plan(request, async () => {
            const { since } = parseStreamQuery(request.query as Record<string, unknown>)
            const { agent, name } = request.params as { agent: string; name: string }
            return { tmuxName: await core.accounts.loginTerminal(agent, name).catch(refused), since }
          }),
      },
      subscribe,
    )

    app.get(
      configAssistantStreamPath(),
      {
        websocket: true,
        config: { restored: true },
        preValidation: (request) =>
          plan(request, async () => {
            const { since } = parseStreamQuery(request.query as Record<string, unknown>)
            const tmuxName = await core.assistant.terminal().catch(refused)
            return { tmuxName, since, watch: { join: () => core.assistant.joined(tmuxName), leave: () => core.assistant.left(tmuxName) } }
          }),
      },
      subscribe,
    )
  }
}
