import { DaemonError } from './client-errors.js'
import type { EnvelopeT } from './envelope.js'
import type { ResponseOf, RouteName } from './routes/index.js'

/** A route's answer as its data, or the DaemonError its envelope (or a foreign reply) carries. */
export function decodeReply<N extends RouteName>(name: N, status: number, text: string): ResponseOf<N> {
  let envelope: EnvelopeT<ResponseOf<N>> | undefined
  try {
    envelope = JSON.parse(text) as EnvelopeT<ResponseOf<N>>
  } catch {
    envelope = undefined
  }
  if (envelope?.error) throw new DaemonError(status, envelope.error, name)
  if (status !== 200 || !envelope || envelope.data === null || envelope.data === undefined) {
    const detail = text.trim().slice(0, 200) || '(empty body)'
    throw new DaemonError(status, { message: `unexpected HTTP ${status} reply: ${detail}` }, name)
  }
  return envelope.data
}
