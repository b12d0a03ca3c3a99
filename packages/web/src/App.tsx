import { Tooltip } from 'radix-ui'
import { lazy, Suspense, useEffect, useRef, useState, type ComponentType } from 'react'
import { Header, NAV } from './components/Header'
import { ReconnectingBanner } from './components/ReconnectingBanner'
import { Shortcuts } from './components/Shortcuts'
import { fleetStore } from './fleet-store'
import { useShortcuts } from './use-shortcuts'
import { openNewSession, useNewSessionOpen } from './new-session'
import { FleetPage } from './pages/FleetPage'
import { hrefOf, pageOf, usePage, type Page } from './route'
import { Toaster } from './toast'
import { useFleet } from './use-fleet'

/** A page off the first screen: loaded when first opened, keeping the initial script small. */
function deferred(load: () => Promise<Record<string, unknown>>, name: string) {
  return lazy(async () => ({ default: (await load())[name] as ComponentType }))
}

const NewSessionDialog = deferred(() => import('./components/NewSessionDialog'), 'NewSessionDialog')

const PAGES = {
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
    <Tooltip.Provider delayDuration={400}>
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
    </Tooltip.Provider>
  )
}

function pageView(page: Page) {
  if (page.name === 'fleet' || page.name === 'session') return <FleetPage selected={page.name === 'session' ? page.id : undefined} />
  if (page.name === 'new') return <NewSessionRoute />
  const Shown = PAGES[page.name]
  return (
    <Suspense fallback={<p className="p-4 text-sm text-muted">Loading…</p>}>
      <Shown />
    </Suspense>
  )
}

/** The new-session dialog, loaded when first asked for (`n`, the header's button, `#/new`). */
function NewSessionHost() {
  const open = useNewSessionOpen()
  // Kept mounted once loaded, so it closes as it opens rather than vanishing.
  const [asked, setAsked] = useState(false)
  if (open && !asked) setAsked(true)
  return asked ? (
    <Suspense fallback={null}>
      <NewSessionDialog />
    </Suspense>
  ) : null
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
  return <FleetPage selected={undefined} />
}
