import { DaemonError, UnreachableError, type Client, type EnvelopeT } from '@svc/protocol'

/** What to tell a person about a failed call: the daemon's own message when it answered. */
export function refusal(error: unknown): string {
  if (error instanceof UnreachableError) return `the daemon is not answering: ${error.message}`
  if (error instanceof DaemonError) return error.message
  return error instanceof Error ? error.message : String(error)
}

export interface HandoffRequest {
  id: string
  to: string
  account: string
  brief: string
}

/**
 * `HandoffSession`, through the client's raw call: the route is not in this version's
 * table, so a daemon that does not serve it answers with its own refusal, shown as is.
 */
export async function handoff(client: Client, body: HandoffRequest): Promise<void> {
  const fields = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== ''))
  const answer = await client.raw('POST', '/v1/HandoffSession', JSON.stringify(fields))
  let envelope: EnvelopeT<unknown> | undefined
  try {
    envelope = JSON.parse(answer.text) as EnvelopeT<unknown>
  } catch {
    envelope = undefined
  }
  if (envelope?.error) throw new DaemonError(answer.status, envelope.error, 'HandoffSession')
  if (answer.status !== 200) throw new DaemonError(answer.status, { message: `unexpected HTTP ${answer.status} reply` }, 'HandoffSession')
}
