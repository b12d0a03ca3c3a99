import { useEffect, useRef } from 'react'
import { fleetStore } from './fleet-store'
import { NewSessionDialog } from './components/NewSessionDialog'
import { Notifications } from './components/Notifications'
import { AccountsPage } from './pages/AccountsPage'
import { ConfigPage } from './pages/ConfigPage'
import { FleetPage } from './pages/FleetPage'
import { ProjectsPage } from './pages/ProjectsPage'
import { SessionPage } from './pages/SessionPage'
import { TasksPage } from './pages/TasksPage'
import { openNewSession, useNewSessionOpen } from './new-session'
import { hrefOf, pageOf, usePage, type Page } from './route'
import { ThemeMenu } from './theme/ThemeMenu'
import { useFleet } from './use-fleet'

const NAV: Array<[Page, string]> = [
  [{ name: 'fleet' }, 'Fleet'],
  [{ name: 'new' }, 'New'],
  [{ name: 'tasks' }, 'Tasks'],
  [{ name: 'projects' }, 'Projects'],
  [{ name: 'accounts' }, 'Accounts'],
  [{ name: 'config' }, 'Config'],
]

const FEED_WORDS = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…' }

export function App() {
  const page = usePage()
  const { feed, error, fleet } = useFleet()
  useEffect(() => fleetStore.start(), [])
  // The tab's title names the page, for a screen reader and a browser's tab list alike.
  const pageLabel = page.name === 'session' ? fleet.sessions.get(page.id)?.title : NAV.find(([target]) => target.name === page.name)?.[1]
  useEffect(() => {
    document.title = pageLabel ? `${pageLabel} · svc` : 'svc'
  }, [pageLabel])
  return (
    <div className="app">
      <header>
        <strong>svc</strong>
        <nav aria-label="pages">
          {NAV.map(([target, label]) => (
            <a
              key={label}
              href={hrefOf(target)}
              className={target.name === page.name ? 'current' : ''}
              aria-current={target.name === page.name ? 'page' : undefined}
            >
              {label}
              {target.name === 'fleet' && fleet.attention.size > 0 ? (
                <span className="badge">
                  {fleet.attention.size}
                  <span className="visually-hidden"> need you</span>
                </span>
              ) : null}
            </a>
          ))}
        </nav>
        <span className={`feed feed-${feed}`} data-testid="feed" role="status">
          {FEED_WORDS[feed]}
        </span>
        <Notifications />
        <ThemeMenu />
      </header>
      {error ? <p className="error" role="alert">{error}</p> : null}
      <main>{pageView(page)}</main>
      <NewSessionDialog />
    </div>
  )
}

function pageView(page: Page) {
  switch (page.name) {
    case 'session':
      return <SessionPage id={page.id} />
    case 'new':
      return <NewSessionRoute />
    case 'tasks':
      return <TasksPage />
    case 'projects':
      return <ProjectsPage />
    case 'accounts':
      return <AccountsPage />
    case 'config':
      return <ConfigPage />
    default:
      return <FleetPage />
  }
}

/** `#/new` opens the new-session dialog over the fleet; closing it there leaves the address for the fleet's. */
function NewSessionRoute() {
  const open = useNewSessionOpen()
  const opened = useRef(false)
  useEffect(() => {
    if (open) opened.current = true
    else if (!opened.current) openNewSession()
    else if (pageOf(window.location.hash).name === 'new') window.location.replace(hrefOf({ name: 'fleet' }))
  }, [open])
  return <FleetPage />
}
