import { DaemonError } from './client-errors.js'
import type { EnvelopeT } from './envelope.js'
import type { ResponseOf, RouteName } from './routes/index.js'

/** An envelope's data, or the DaemonError its envelope (or a foreign reply) carries; `route` names the call in that error. */
export function decodeEnvelope<T>(route: string, status: number, text: string): T {
  let envelope: EnvelopeT<T> | undefined
  try {
    envelope = JSON.parse(text) as EnvelopeT<T>
  } catch {
    envelope = undefined
  }
  if (envelope?.error) throw new DaemonError(status, envelope.error, route)
  if (status !== 200 || !envelope || envelope.data === null || envelope.data === undefined) {
    const detail = text.trim().slice(0, 200) || '(empty body)'
    throw new DaemonError(status, { message: `unexpected HTTP ${status} reply: ${detail}` }, route)
  }
  return envelope.data
}

/** A route's answer as its data, or the DaemonError its envelope (or a foreign reply) carries. */
export function decodeReply<N extends RouteName>(name: N, status: number, text: string): ResponseOf<N> {
  return decodeEnvelope<ResponseOf<N>>(name, status, text)
}
