import type { DeliveryStatus } from '@svc/protocol'
import { EXIT } from './exit.js'

/** Only `delivered` claims the prompt arrived; the others say plainly what is known. */
const NOTES: Record<DeliveryStatus, string> = {
  delivered: 'prompt delivered',
  'not-delivered': 'prompt NOT delivered: the pane showed only its beginning, even after a retry, so it was not submitted',
  'sent-unverified': 'prompt sent but unverified: Enter was pressed, yet the pane did not show the exact prompt, or the agent did not show that it took it',
  'could-not-confirm': 'prompt sent but not confirmed: the pane could not be read',
}

/**
 * What a prompt's delivery status means, for people. `not-delivered` is the one status
 * that says the prompt did not arrive, so it also sets its own exit code (the JSON
 * reply still goes to stdout): the session operation itself succeeded. `reason`: why not,
 * when the daemon knows better than the pane's evidence (its composer never came up).
 */
export function deliveryNote(title: string, status: string, reason?: string): string {
  const note = status === 'not-delivered' && reason ? `prompt NOT delivered: ${reason}` : (NOTES[status as DeliveryStatus] ?? `prompt status ${status}`)
  if (status === 'not-delivered') {
    process.exitCode = EXIT.notDelivered
    process.stderr.write(`svc: ${title}: ${note}; retry with: svc sessions send ${title} …\n`)
  }
  const look = status === 'sent-unverified' || status === 'could-not-confirm' ? `; look with: svc sessions attach ${title}` : ''
  return `${note}${look}`
}
