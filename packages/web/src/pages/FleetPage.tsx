import { Plus } from 'lucide-react'
import { Rail } from '../components/Rail'
import { ui } from '../components/ui'
import { openNewSession } from '../new-session'
import { useFleet } from '../use-fleet'
import { SessionPage } from './SessionPage'

/**
 * The rail and the selected session side by side from 640 px (the rail narrower below
 * 1024 px); on a phone the rail alone, or the selected session full screen.
 */
export function FleetPage({ selected }: { selected: string | undefined }) {
  const { fleet } = useFleet()
  return (
    <div className="flex h-full min-h-0">
      <aside className={`${selected ? 'hidden sm:flex' : 'flex'} w-full shrink-0 flex-col border-line bg-surface sm:w-64 sm:border-r lg:w-80`}>
        {/* On a phone the rail is the page: its heading, as the pane beside it has it from 640 px. */}
        {selected ? null : <h1 className="sr-only sm:hidden">Sessions</h1>}
        <Rail fleet={fleet} selected={selected} />
      </aside>
      <div className={`${selected ? 'flex' : 'hidden sm:flex'} min-w-0 flex-1 flex-col`}>
        {selected ? <SessionPage key={selected} id={selected} /> : <NoSelection none={fleet.bootId !== '' && fleet.sessions.size === 0} />}
      </div>
    </div>
  )
}

/** What the space beside the rail says while no session is selected: what to do next. */
function NoSelection({ none }: { none: boolean }) {
  if (none) {
    return (
      <div className="m-auto max-w-sm space-y-3 p-6 text-center" data-empty="no-sessions">
        <h1 className="text-lg font-semibold">No sessions yet</h1>
        <p className={ui.empty}>Start an agent on one of your projects.</p>
        <button type="button" className={ui.primary} onClick={openNewSession}>
          <Plus aria-hidden className="size-4" />
          New session
        </button>
      </div>
    )
  }
  return (
    <div className="m-auto max-w-sm p-6 text-center" data-empty="no-selection">
      <h1 className="sr-only">Sessions</h1>
      <p className={ui.empty}>
        Select a session, or press <kbd className="rounded border border-line bg-surface px-1 font-mono">n</kbd> for a new one.
      </p>
    </div>
  )
}
