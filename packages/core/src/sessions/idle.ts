import type { IdleReason } from '@svc/protocol'
import { stateOf, type SessionRecord } from './record.js'

/**
 * Why a session is not visibly working, derived at read time from what the daemon
 * observed; the first rule that applies wins. Undefined means no reason is established.
 */
export function idleReason(record: SessionRecord, operationInFlight: boolean): IdleReason | undefined {
  if (operationInFlight) return undefined
  // A hook session's reason is its remote's, kept as last seen while the remote does not answer.
  if (record.remote) return record.remote.idle_reason
  const state = stateOf(record)
  if (state === 'limit-reached') return 'usage-limit'
  if (state === 'lost' || state === 'dead') return record.lost_restore_failure ? 'restore-gave-up' : 'process-exited'
  if (state !== 'ready') return undefined
  if (record.agent_asks !== undefined) return 'agent-asks'
  if (record.recreate) return 'recreate-pending'
  const attempt = record.last_prompt_attempt_at
  const status = record.last_prompt_delivery_status
  if (attempt === undefined || status === undefined) return undefined
  if (status === 'not-delivered') return 'prompt-not-delivered'
  const changedSince = record.last_pane_churn_at !== undefined && Date.parse(record.last_pane_churn_at) > Date.parse(attempt)
  if (changedSince) return 'settled-after-pane-change'
  return status === 'delivered' ? 'no-pane-change-since-delivery' : 'delivery-unconfirmed'
}
