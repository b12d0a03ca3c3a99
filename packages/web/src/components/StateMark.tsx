import { stateLook } from '@svc/protocol/browser'
import type { Session } from '../api'
import { TONE_FILL, TONE_TEXT } from './ui'

/** A session's state at a glance: a dot in its tone and its word, never the color alone. */
export function StateMark({ session, className = '' }: { session: Session; className?: string }) {
  const { word, tone } = stateLook(session)
  return (
    <span className={`inline-flex items-center gap-1.5 font-medium ${TONE_TEXT[tone]} ${className}`} data-state={word}>
      <span aria-hidden className={`size-2.5 shrink-0 rounded-full ${TONE_FILL[tone]}`} />
      {word}
    </span>
  )
}

/** The "needs you" mark of a session that asked for its user. */
export function NeedsYou() {
  return <span className="shrink-0 rounded-full bg-tone-attention px-2 py-0.5 text-xs font-semibold text-bg" data-attention="">needs you</span>
}
