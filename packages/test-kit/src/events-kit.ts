import type { Client, EventFrame, EventKind, FeedFrame } from '@svc/protocol'
import { GiveUp, waitFor } from './wait.js'

export type FrameOf<K extends EventKind> = Extract<EventFrame, { type: K }>

/** A subscriber that keeps every frame of the feed, for a test to wait on and inspect. */
export interface Recorder {
  readonly frames: FeedFrame[]
  /** The first frame from `from` on (an index into frames) of that kind that `accept` takes. */
  next<K extends EventKind>(kind: K, accept?: (frame: FrameOf<K>) => boolean, from?: number, timeoutMs?: number): Promise<FrameOf<K>>
  /** The frames of these kinds received so far. */
  ofKind<K extends EventKind>(kind: K): Array<FrameOf<K>>
  close(): void
}

/** Subscribes through the client and resolves once the hello frame arrived. */
export async function recordEvents(client: Client): Promise<Recorder> {
  const frames: FeedFrame[] = []
  const abort = new AbortController()
  let failure: Error | undefined
  void (async () => {
    for await (const frame of client.events({ signal: abort.signal })) frames.push(frame)
  })().catch((error: Error) => (failure = error))
  await waitFor(() => {
    // The feed ended: no frame is coming.
    if (failure !== undefined) throw new GiveUp(failure)
    return frames.length > 0
  }, 20_000)
  const ofKind = <K extends EventKind>(kind: K) => frames.filter((frame): frame is FrameOf<K> => frame.type === kind)
  return {
    frames,
    ofKind,
    next: (kind, accept = () => true, from = 0, timeoutMs = 15_000) =>
      waitFor(() => frames.slice(from).find((frame): frame is FrameOf<typeof kind> => frame.type === kind && accept(frame as never)), timeoutMs),
    close: () => abort.abort(),
  }
}
