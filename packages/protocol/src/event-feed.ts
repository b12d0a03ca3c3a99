import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import type { ErrorBodyT } from './envelope.js'
import { EVENTS_PATH, type FeedFrame } from './events.js'

export interface EventsOptions {
  /** Ends the feed (the iterator returns). */
  signal?: AbortSignal
  /** The first wait before reconnecting; doubled per failed attempt, up to RETRY_MAX_MS. */
  retryMs?: number
}

type Endpoint = { socketPath: string } | { url: string; token?: string | undefined }

const RETRY_MAX_MS = 5_000

/** Where the feed is, as `ws` dials it: a Unix socket, or the TCP listener with the token. */
function address(target: Endpoint): string {
  if ('socketPath' in target) return `ws+unix://${target.socketPath}:${EVENTS_PATH}`
  const url = new URL(EVENTS_PATH, target.url)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  return url.href
}

/** Why a connection was not opened: the daemon's envelope (a refusal), or nothing answering. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBodyT | undefined,
    message: string,
  ) {
    super(message)
  }
}

/**
 * One connection's frames, as they arrive; it ends when the socket closes. Listening
 * starts with the socket: the hello can arrive in the same read as the upgrade answer,
 * and is emitted before anyone awaiting the open could attach a listener.
 */
function inbox(socket: WebSocket): (signal: AbortSignal | undefined) => AsyncGenerator<FeedFrame> {
  const queue: FeedFrame[] = []
  let closed = false
  let wake: (() => void) | undefined
  const notify = () => {
    wake?.()
    wake = undefined
  }
  socket.on('message', (data: Buffer) => {
    queue.push(JSON.parse(data.toString('utf8')) as FeedFrame)
    notify()
  })
  socket.on('close', () => {
    closed = true
    notify()
  })
  return async function* frames(signal) {
    const stop = () => socket.close()
    signal?.addEventListener('abort', stop)
    try {
      for (;;) {
        const frame = queue.shift()
        if (frame !== undefined) yield frame
        else if (closed) return
        else await new Promise<void>((resolve) => (wake = resolve))
      }
    } finally {
      signal?.removeEventListener('abort', stop)
      socket.terminate()
    }
  }
}

function open(target: Endpoint, headers: Record<string, string>): Promise<ReturnType<typeof inbox>> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(address(target), { headers })
    const frames = inbox(socket)
    socket.once('open', () => resolve(frames))
    socket.once('unexpected-response', (_request, response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      response.on('end', () => {
        let body: ErrorBodyT | undefined
        try {
          body = (JSON.parse(text) as { error?: ErrorBodyT }).error ?? undefined
        } catch {
          body = undefined
        }
        const status = response.statusCode ?? 0
        reject(new Refusal(status, body, body?.message ?? `unexpected HTTP ${status} reply to the event feed upgrade`))
        // After the rejection: ending a socket still connecting reports an error of its own.
        socket.terminate()
      })
    })
    socket.once('error', (error) => reject(error))
  })
}

/**
 * The event feed as an async iterator. Each connection starts with a hello frame; when
 * the connection drops (a daemon restart, an overflow close) it reconnects and yields the
 * new hello, so a hello after the first tells the consumer that it may have missed
 * events and should read Snapshot again. A refusal (401, 403, ...) ends it with `refused`'s
 * error; so does a first connection that cannot be made at all.
 */
export async function* eventFeed(
  target: Endpoint,
  headers: Record<string, string>,
  options: EventsOptions,
  errors: { refused(status: number, body: ErrorBodyT): Error; unreachable(error: Error): Error },
): AsyncGenerator<FeedFrame> {
  const first = options.retryMs ?? 250
  let delay = first
  let connected = false
  while (!options.signal?.aborted) {
    let frames: ReturnType<typeof inbox>
    try {
      frames = await open(target, headers)
    } catch (error) {
      const warming = error instanceof Refusal && error.status === 503
      if (error instanceof Refusal && !warming) {
        throw errors.refused(error.status, error.body ?? { message: error.message })
      }
      if (!connected && !warming) throw errors.unreachable(error as Error)
      await sleep(delay, undefined, { signal: options.signal }).catch(() => undefined)
      delay = Math.min(delay * 2, RETRY_MAX_MS)
      continue
    }
    connected = true
    delay = first
    yield* frames(options.signal)
  }
}
