import { age, idleWords, remoteWords } from '@svc/protocol/browser'
import type { Session } from '../api'
import { hrefOf } from '../route'

const GLYPHS: Record<string, string> = {
  running: '●',
  ready: '○',
  'limit-reached': '◐',
  lost: '?',
  dead: '✕',
  archived: '▫',
}

export function SessionRow({ session, attention }: { session: Session; attention: string | undefined }) {
  const state = session.liveness_name || session.status_name
  return (
    <a className={`row state-${state}`} href={hrefOf({ name: 'session', id: session.id })} data-session={session.title}>
      <span className="glyph" aria-hidden>
        {GLYPHS[state] ?? '·'}
      </span>
      <span className="title">
        {session.title}
        {attention ? <span className="badge attention">needs you</span> : null}
      </span>
      <span className="state">{state}</span>
      <span className="reason">{idleWords(session)}</span>
      <span className="program">
        {session.program}
        {session.remote_host !== undefined ? <span className={session.remote_unreachable ? 'remote unreachable' : 'remote'}> {remoteWords(session)}</span> : null}
      </span>
      <span className="branch">{session.branch}</span>
      <span className="age">{age(session.last_pane_churn_at, Date.now())}</span>
    </a>
  )
}
