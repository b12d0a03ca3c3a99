import { setTimeout as sleep } from 'node:timers/promises'
import { DaemonError } from './client-errors.js'
import { EVENTS_PATH, type FeedFrame } from './events.js'
import { messageBytes, openPlane, type ClientTarget, type PlaneSocket } from './plane-socket.js'

export interface EventsOptions {
  /** Ends the feed (the iterator returns). */
  signal?: AbortSignal
  /** The first wait before reconnecting; doubled per failed attempt, up to RETRY_MAX_MS. */
  retryMs?: number
}

const RETRY_MAX_MS = 5_000

/** One connection's frames; they end when the socket closes, drops, or `signal` aborts. */
async function* frames({ socket, messages }: PlaneSocket, signal: AbortSignal | undefined): AsyncGenerator<FeedFrame> {
  const stop = () => socket.close()
  signal?.addEventListener('abort', stop)
  try {
    for await (const [data] of messages) yield JSON.parse(messageBytes(data).toString('utf8')) as FeedFrame
  } catch {
    // A connection that fails after opening is a drop like any other: the caller reconnects.
  } finally {
    signal?.removeEventListener('abort', stop)
    socket.terminate()
  }
}

/**
 * The event feed as an async iterator. Each connection starts with a hello frame; when
 * the connection drops (a daemon restart, an overflow close) it reconnects and yields the
 * new hello, so a hello after the first tells the consumer that it may have missed
 * events and should read Snapshot again. A refusal (401, 403, ...) ends it with the
 * daemon's error; so does a first connection that cannot be made at all. A warming
 * daemon (503) is waited for.
 */
export async function* eventFeed(
  target: ClientTarget,
  headers: Record<string, string>,
  options: EventsOptions,
): AsyncGenerator<FeedFrame> {
  const first = options.retryMs ?? 250
  let delay = first
  let connected = false
  while (!options.signal?.aborted) {
    let plane: PlaneSocket
    try {
      plane = await openPlane(target, EVENTS_PATH, headers, 'events')
    } catch (error) {
      const warming = error instanceof DaemonError && error.status === 503
      if (error instanceof DaemonError && !warming) throw error
      if (!connected && !warming) throw error
      await sleep(delay, undefined, { signal: options.signal }).catch(() => undefined)
      delay = Math.min(delay * 2, RETRY_MAX_MS)
      continue
    }
    connected = true
    delay = first
    yield* frames(plane, options.signal)
  }
}
