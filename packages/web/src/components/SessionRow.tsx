import { age, idleWords, remoteWords } from '@svc/protocol/browser'
import type { Session } from '../api'
import { hrefOf } from '../route'
import { NeedsYou, StateMark } from './StateMark'

/** A session in the rail: its state, title, why it idles, what runs it and where; a link selecting it. */
export function SessionRow({ session, attention, selected = false }: { session: Session; attention: string | undefined; selected?: boolean }) {
  const reason = idleWords(session)
  return (
    <a
      href={hrefOf({ name: 'session', id: session.id })}
      data-session={session.title}
      data-session-id={session.id}
      aria-current={selected ? 'page' : undefined}
      className={`block rounded-md border-l-4 px-2 py-1.5 text-fg no-underline hover:bg-raised ${selected ? 'border-accent bg-raised' : 'border-transparent'}`}
    >
      <span className="flex items-center gap-2">
        <span className="min-w-0 flex-1 truncate font-medium">{session.title}</span>
        {attention ? <NeedsYou /> : null}
        <span className="shrink-0 text-xs text-muted">{age(session.last_pane_churn_at, Date.now())}</span>
      </span>
      <span className="flex flex-wrap items-center gap-x-2 text-xs">
        <StateMark session={session} />
        {reason ? <span className="text-muted">{reason}</span> : null}
      </span>
      <span className="flex gap-2 truncate text-xs text-muted">
        <span>
          {session.program}
          {session.remote_host !== undefined ? (
            <span data-remote={session.remote_unreachable ? 'unreachable' : 'reachable'} className={session.remote_unreachable ? 'text-tone-lost' : ''}>
              {' '}
              {remoteWords(session)}
            </span>
          ) : null}
        </span>
        <span className="truncate">{session.branch}</span>
      </span>
    </a>
  )
}
