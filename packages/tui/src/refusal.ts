import { DaemonError, UnreachableError, type Client } from '@svc/protocol'

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

/** `HandoffSession` with the fields the dialog filled in (an empty one is left to the daemon). */
export async function handoff(client: Client, body: HandoffRequest): Promise<void> {
  await client.call('HandoffSession', Object.fromEntries(Object.entries(body).filter(([, value]) => value !== '')))
}
