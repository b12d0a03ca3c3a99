import type { IdleReason } from './vocab.js'

/**
 * Why an agent is idle, in the words both people-facing clients show; the same reason
 * reads the same in the terminal UI and the web UI.
 */
const IDLE_REASON_WORDS: Record<IdleReason, string> = {
  'usage-limit': 'usage limit reached',
  'process-exited': 'agent exited',
  'restore-gave-up': 'restore gave up',
  'recreate-pending': 'waiting: recreate pending (the root agent changed)',
  'prompt-not-delivered': 'waiting: prompt not delivered',
  'delivery-unconfirmed': 'waiting: prompt delivery unconfirmed',
  'no-pane-change-since-delivery': 'waiting: prompt sent, no reaction yet',
  'settled-after-pane-change': 'done: settled after working',
}

export function idleReasonWords(reason: IdleReason | undefined): string {
  return reason === undefined ? '' : IDLE_REASON_WORDS[reason]
}

/** "12s", "4m", "3h", "2d": how long ago `at` was, for a list row. */
export function ageWords(at: string | undefined, now: number = Date.now()): string {
  if (!at) return ''
  const seconds = Math.max(0, Math.round((now - Date.parse(at)) / 1000))
  if (!Number.isFinite(seconds)) return ''
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`
  return `${Math.floor(seconds / 86_400)}d`
}
