import { setTimeout as sleep } from 'node:timers/promises'
import { DaemonError } from './client-errors.js'
import { EVENTS_PATH, type FeedFrame } from './events.js'
import { messageBytes, openPlane, type ClientTarget, type PlaneSocket } from './plane-socket.js'

export interface EventsOptions {
  /** Ends the feed (the iterator returns). */
  signal?: AbortSignal
  /** The first wait before reconnecting; doubled per failed attempt, up to `retryMaxMs`. */
  retryMs?: number
  /** The longest wait between attempts; 5 s unless given. */
  retryMaxMs?: number
  /**
   * Told of each attempt that could not connect (refused, unreachable, timed out). With
   * it the feed never gives up on its own, a refusal and a first failure included: only
   * `signal` ends it (a daemon relaying another's feed waits for it to come back).
   */
  onDown?: (error: Error) => void
  /**
   * Drops a connection that heard nothing (no frame, no ping) for this long, and gives up
   * an upgrade that takes as long: a peer gone without closing its connection. The daemon
   * pings every EVENTS_PING_MS, so this must be longer. Off unless given.
   */
  silenceMs?: number
}

const RETRY_MAX_MS = 5_000

/** One connection's frames; they end when the socket closes, drops, falls silent, or `signal` aborts. */
async function* frames({ socket, messages }: PlaneSocket, signal: AbortSignal | undefined, silenceMs: number | undefined): AsyncGenerator<FeedFrame> {
  const stop = () => socket.close()
  signal?.addEventListener('abort', stop)
  let quiet: NodeJS.Timeout | undefined
  const heard = () => {
    if (silenceMs === undefined) return
    clearTimeout(quiet)
    quiet = setTimeout(() => socket.terminate(), silenceMs).unref()
  }
  socket.on('ping', heard)
  heard()
  try {
    for await (const [data] of messages) {
      heard()
      yield JSON.parse(messageBytes(data).toString('utf8')) as FeedFrame
    }
  } catch {
    // A connection that fails after opening is a drop like any other: the caller reconnects.
  } finally {
    clearTimeout(quiet)
    signal?.removeEventListener('abort', stop)
    socket.terminate()
  }
}

/**
 * The event feed as an async iterator. Each connection starts with a hello frame; when
 * the connection drops (a daemon restart, an overflow close) it reconnects and yields the
 * new hello, so a hello after the first tells the consumer that it may have missed
 * events and should read Snapshot again. A refusal (401, 403, ...) ends it with the
 * daemon's error; so does a first connection that cannot be made at all (unless
 * `onDown` is given). A warming daemon (503) is waited for.
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
      plane = await openPlane(target, EVENTS_PATH, headers, 'events', options.silenceMs)
    } catch (error) {
      const warming = error instanceof DaemonError && error.status === 503
      if (options.onDown) options.onDown(error as Error)
      else if ((error instanceof DaemonError && !warming) || (!connected && !warming)) throw error
      await sleep(delay, undefined, { signal: options.signal }).catch(() => undefined)
      delay = Math.min(delay * 2, options.retryMaxMs ?? RETRY_MAX_MS)
      continue
    }
    connected = true
    delay = first
    yield* frames(plane, options.signal, options.silenceMs)
  }
}
