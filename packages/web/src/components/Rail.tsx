import { Plus, SearchX } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'
import { fleetGroups, type Fleet } from '@svc/protocol/browser'
import { inWidget, typingIn } from '../keyboard'
import { openNewSession } from '../new-session'
import { hrefOf } from '../route'
import { SessionRow } from './SessionRow'
import { ui } from './ui'

const NEXT_KEYS = new Set(['j', 'ArrowDown'])
const PREVIOUS_KEYS = new Set(['k', 'ArrowUp'])

/**
 * The sessions, grouped by project with counts, those needing the user first: a filter
 * (`/`), and `j`/`k` or the arrows move the selection, which is the URL's.
 */
export function Rail({ fleet, selected }: { fleet: Fleet; selected?: string | undefined }) {
  const [filter, setFilter] = useState('')
  const filterInput = useRef<HTMLInputElement>(null)
  const shown = fleetGroups(fleet, { filter, attentionFirst: false })
  const order = shown.flatMap((group) => group.sessions.map((session) => session.id))
  const latest = useRef({ order, selected })
  latest.current = { order, selected }
  useEffect(() => {
    const pressed = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target) || inWidget(event.target)) return
      if (event.key === '/') {
        event.preventDefault()
        filterInput.current?.focus()
        return
      }
      const step = NEXT_KEYS.has(event.key) ? 1 : PREVIOUS_KEYS.has(event.key) ? -1 : 0
      const { order, selected } = latest.current
      if (step === 0 || order.length === 0) return
      event.preventDefault()
      const at = selected === undefined ? -1 : order.indexOf(selected)
      const next = order[at === -1 ? (step > 0 ? 0 : order.length - 1) : Math.min(order.length - 1, Math.max(0, at + step))] as string
      window.location.hash = hrefOf({ name: 'session', id: next })
      document.querySelector<HTMLElement>(`[data-rail] a[data-session-id="${CSS.escape(next)}"]`)?.focus()
    }
    document.addEventListener('keydown', pressed)
    return () => document.removeEventListener('keydown', pressed)
  }, [])
  return (
    <nav aria-label="sessions" className="flex min-h-0 flex-col" data-rail="">
      <div className="p-2">
        <input
          ref={filterInput}
          type="search"
          aria-label="filter sessions"
          aria-keyshortcuts="/"
          placeholder="Filter (press /)"
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
          className={`${ui.field} w-full`}
        />
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto px-2 pb-4">
        {fleet.sessions.size === 0 ? (
          <div className="space-y-2 p-2" data-empty="no-sessions">
            <p className={ui.empty}>No sessions yet.</p>
            <button type="button" className={ui.primary} onClick={openNewSession}>
              <Plus aria-hidden className="size-4" />
              New session
            </button>
          </div>
        ) : shown.length === 0 ? (
          <div className="space-y-2 p-2" data-empty="no-match">
            <p className={`${ui.empty} flex items-center gap-1.5`}>
              <SearchX aria-hidden className="size-4" />
              Nothing matches “{filter}”.
            </p>
            <button type="button" className={ui.button} onClick={() => (setFilter(''), filterInput.current?.focus())}>
              Clear the filter
            </button>
          </div>
        ) : null}
        {shown.map((group) => (
          <section key={group.key} className="mt-2">
            <h2 className="flex items-baseline gap-2 px-2 text-xs font-semibold text-muted">
              <span className="min-w-0 flex-1 truncate" title={group.repoPath}>
                {group.name}
              </span>
              <span>
                {group.sessions.length}
                <span className="sr-only"> sessions</span>
              </span>
            </h2>
            <ul className="mt-1 space-y-0.5">
              {group.sessions.map((session) => (
                <li key={session.id}>
                  <SessionRow session={session} attention={fleet.attention.get(session.id)} selected={session.id === selected} />
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </nav>
  )
}
