import { CalendarClock, FolderGit2, Keyboard, LayoutList, Plus, Settings, Users } from 'lucide-react'
import type { FeedState, Fleet } from '@svc/protocol/browser'
import { openNewSession } from '../new-session'
import { hrefOf, type Page } from '../route'
import { ThemeMenu } from '../theme/ThemeMenu'
import { Hint } from './Hint'
import { Notifications } from './Notifications'
import { ui } from './ui'

export const NAV: Array<[Page['name'], string, typeof Settings]> = [
  ['fleet', 'Sessions', LayoutList],
  ['tasks', 'Tasks', CalendarClock],
  ['projects', 'Projects', FolderGit2],
  ['accounts', 'Accounts', Users],
  ['config', 'Config', Settings],
]

const FEED_LOOKS: Record<FeedState, { word: string; dot: string }> = {
  connecting: { word: 'connecting…', dot: 'bg-tone-attention' },
  live: { word: 'live', dot: 'bg-tone-running' },
  reconnecting: { word: 'reconnecting…', dot: 'bg-tone-attention' },
}

/** The pages (labels shown from 640 px, icons alone on a phone), the feed, what needs the user, and the new-session button. */
export function Header({ page, fleet, feed, showShortcuts }: { page: Page; fleet: Fleet; feed: FeedState; showShortcuts: () => void }) {
  const current = page.name === 'session' ? 'fleet' : page.name
  const needing = [...fleet.attention.keys()].filter((id) => fleet.sessions.has(id))
  return (
    <header className="flex flex-wrap items-center gap-x-2 gap-y-2 border-b border-line bg-surface px-3 py-2 sm:gap-x-3">
      <a href="#/" className="text-base font-bold text-fg no-underline">
        svc
      </a>
      <nav aria-label="pages" className="flex items-center gap-1">
        {NAV.map(([name, label, Icon]) => (
          <Hint key={name} text={label}>
            <a
              href={hrefOf(name === 'fleet' ? { name } : ({ name } as Page))}
              aria-current={name === current ? 'page' : undefined}
              className="inline-flex items-center gap-1.5 rounded-md px-1.5 py-1 text-sm sm:px-2 text-muted no-underline hover:bg-raised hover:text-fg aria-[current=page]:bg-raised aria-[current=page]:font-semibold aria-[current=page]:text-fg"
            >
              <Icon aria-hidden className="size-4" />
              <span className="max-sm:sr-only">{label}</span>
            </a>
          </Hint>
        ))}
      </nav>
      <div className="ml-auto flex flex-wrap items-center gap-1.5 sm:gap-2">
        {needing.length > 0 ? (
          <a
            href={hrefOf({ name: 'session', id: needing[0] as string })}
            data-testid="needs-you"
            className="rounded-full bg-tone-attention px-2 py-0.5 text-xs font-semibold text-bg no-underline"
          >
            {needing.length} need{needing.length === 1 ? 's' : ''} you
          </a>
        ) : null}
        <span data-testid="feed" className="inline-flex items-center gap-1.5 text-xs text-muted">
          <span aria-hidden className={`size-2 rounded-full ${FEED_LOOKS[feed].dot}`} />
          <span className="max-sm:sr-only">{FEED_LOOKS[feed].word}</span>
        </span>
        <Notifications />
        <ThemeMenu />
        <Hint text="Keyboard shortcuts (?)">
          <button type="button" className={`${ui.button} px-2 max-sm:hidden`} aria-label="Keyboard shortcuts" aria-keyshortcuts="?" onClick={showShortcuts}>
            <Keyboard aria-hidden className="size-4" />
          </button>
        </Hint>
        <button type="button" className={`${ui.primary} max-sm:px-2`} aria-keyshortcuts="n" onClick={openNewSession}>
          <Plus aria-hidden className="size-4" />
          <span className="max-sm:sr-only">New session</span>
        </button>
      </div>
    </header>
  )
}
