import { lazy, Suspense, useEffect, useState, type ComponentType } from 'react'
import { Header, NAV } from './components/Header'
import { ReconnectingBanner } from './components/ReconnectingBanner'
import { Shortcuts } from './components/Shortcuts'
import { fleetStore } from './fleet-store'
import { useShortcuts } from './use-shortcuts'
import { closeNewSession, useNewSessionOpen } from './new-session'
import { FleetPage } from './pages/FleetPage'
import { hrefOf, usePage, type Page } from './route'
import { Toaster } from './toast'
import { useFleet } from './use-fleet'

/** A page off the first screen: loaded when first opened, keeping the initial script small. */
function deferred(load: () => Promise<Record<string, unknown>>, name: string) {
  return lazy(async () => ({ default: (await load())[name] as ComponentType }))
}

const PAGES = {
  new: deferred(() => import('./pages/NewSessionPage'), 'NewSessionPage'),
  tasks: deferred(() => import('./pages/TasksPage'), 'TasksPage'),
  projects: deferred(() => import('./pages/ProjectsPage'), 'ProjectsPage'),
  accounts: deferred(() => import('./pages/AccountsPage'), 'AccountsPage'),
  config: deferred(() => import('./pages/ConfigPage'), 'ConfigPage'),
}

export function App() {
  const page = usePage()
  const { feed, error, fleet } = useFleet()
  const [shortcutsShown, showShortcuts] = useState(false)
  useEffect(() => fleetStore.start(), [])
  useShortcuts(page, () => showShortcuts(true))
  // The tab's title names the page, for a screen reader and a browser's tab list alike.
  const pageLabel = page.name === 'session' ? fleet.sessions.get(page.id)?.title : page.name === 'new' ? 'New session' : NAV.find(([name]) => name === page.name)?.[1]
  useEffect(() => {
    document.title = pageLabel ? `${pageLabel} · svc` : 'svc'
  }, [pageLabel])
  return (
    <div className="flex h-dvh flex-col bg-bg text-fg">
      <Header page={page} fleet={fleet} feed={feed} showShortcuts={() => showShortcuts(true)} />
      <ReconnectingBanner feed={feed} />
      {error ? (
        <p className="border-b border-line px-3 py-1.5 text-sm text-danger" role="alert">
          {error}
        </p>
      ) : null}
      <main className={`min-h-0 flex-1 ${page.name === 'fleet' || page.name === 'session' ? '' : 'overflow-y-auto'}`}>{pageView(page)}</main>
      <NewSessionHost />
      <Shortcuts open={shortcutsShown} setOpen={showShortcuts} />
      <Toaster />
    </div>
  )
}

function pageView(page: Page) {
  if (page.name === 'fleet' || page.name === 'session') return <FleetPage selected={page.name === 'session' ? page.id : undefined} />
  const Shown = PAGES[page.name]
  return (
    <Suspense fallback={<p className="p-4 text-sm text-muted">Loading…</p>}>
      <Shown />
    </Suspense>
  )
}

/** Where the new-session form opens when asked for (`n`, the header's button): its page, for now. */
function NewSessionHost() {
  const open = useNewSessionOpen()
  useEffect(() => {
    if (!open) return
    closeNewSession()
    window.location.hash = hrefOf({ name: 'new' })
  }, [open])
  return null
}
