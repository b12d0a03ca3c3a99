import { idleWords, killWords, remoteWords } from '@svc/protocol/browser'
import { ArrowLeft, Plus } from 'lucide-react'
import { Tabs } from 'radix-ui'
import { useEffect, useState } from 'react'
import { api, type Session } from '../api'
import { ConfirmButton } from '../components/Confirm'
import { PromptForm } from '../components/PromptForm'
import { NeedsYou, StateMark } from '../components/StateMark'
import { TabView } from '../components/TabView'
import { ui } from '../components/ui'
import { fleetStore } from '../fleet-store'
import { useFleet } from '../use-fleet'
import { Outcome, useAction } from '../use-action'

/** The selected session, filling the space beside the rail (the whole screen on a phone, with a way back). */
export function SessionPage({ id }: { id: string }) {
  const { fleet } = useFleet()
  const session = fleet.sessions.get(id)
  const [tabIndex, setTabIndex] = useState(0)
  useEffect(() => fleetStore.markSeen(id), [id, fleet.attention])
  if (!session) {
    return (
      <div className="space-y-2 p-4">
        <BackToRail />
        <p className={`empty ${ui.empty}`}>{fleet.bootId ? 'This session no longer exists.' : 'Loading…'}</p>
      </div>
    )
  }
  // A tab that closed leaves the agent's tab shown.
  const current = session.tabs[tabIndex] ? tabIndex : 0
  const tab = session.tabs[current]
  return (
    <section className="flex h-full min-h-0 flex-col gap-2 p-2 sm:p-3" data-session-pane={session.id} aria-labelledby="session-title">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <BackToRail />
        <h1 id="session-title" className="min-w-0 truncate text-lg font-semibold">
          {session.title}
        </h1>
        <StateMark session={session} className="text-sm" />
        {fleet.attention.has(id) ? <NeedsYou /> : null}
        <span className="text-sm text-muted">{idleWords(session)}</span>
        <span className="text-sm text-muted" data-testid="session-meta">
          {[session.program, session.branch, remoteWords(session)].filter(Boolean).join(' · ')}
        </span>
        <Lifecycle session={session} bootId={fleet.bootId} />
      </div>
      <Tabs.Root value={String(current)} onValueChange={(value) => setTabIndex(Number(value))} className="flex min-h-0 flex-1 flex-col gap-2">
        <div className="flex flex-wrap items-center gap-2 border-b border-line">
          <Tabs.List aria-label="tabs" className="flex flex-wrap">
            {session.tabs.map((entry, index) => (
              <Tabs.Trigger
                key={entry.id ?? entry.name}
                value={String(index)}
                className="-mb-px border-b-2 border-transparent px-3 py-1.5 text-sm text-muted hover:text-fg data-[state=active]:border-accent data-[state=active]:font-semibold data-[state=active]:text-fg"
              >
                {entry.name}
              </Tabs.Trigger>
            ))}
          </Tabs.List>
          <NewShellTab session={session} opened={() => setTabIndex(session.tabs.length)} />
        </div>
        {tab ? (
          <Tabs.Content value={String(current)} className="flex min-h-0 flex-1 flex-col">
            <TabView session={session} tab={tab} />
          </Tabs.Content>
        ) : null}
      </Tabs.Root>
      <PromptForm session={session} />
    </section>
  )
}

/** On a phone the session hides the rail: this goes back to it. */
function BackToRail() {
  return (
    <a href="#/" className={`${ui.link} inline-flex items-center gap-1 text-sm sm:hidden`}>
      <ArrowLeft aria-hidden className="size-4" />
      Sessions
    </a>
  )
}

function NewShellTab({ session, opened }: { session: Session; opened: () => void }) {
  const { busy, outcome, run } = useAction()
  return (
    <>
      <button
        type="button"
        disabled={busy}
        className="inline-flex items-center gap-1 rounded px-2 py-1 text-sm text-link hover:bg-surface"
        onClick={() =>
          void run(async () => {
            await api.call('CreateTab', { id: session.id, shell: true })
            opened()
            return 'opened a shell tab'
          })
        }
      >
        <Plus aria-hidden className="size-4" />
        shell
        <span className="sr-only"> tab</span>
      </button>
      <Outcome outcome={outcome} />
    </>
  )
}

function Lifecycle({ session, bootId }: { session: Session; bootId: string }) {
  const { busy, outcome, run } = useAction()
  return (
    <div className="ml-auto flex flex-wrap items-center gap-2">
      {session.can_handoff ? <Handoff session={session} /> : null}
      {session.lifecycle_action === 'archive' ? (
        <button
          type="button"
          className={ui.button}
          disabled={busy}
          onClick={() => void run(async () => `archived to ${(await api.call('ArchiveSession', { id: session.id })).archived_path}`)}
        >
          Archive
        </button>
      ) : null}
      {session.lifecycle_action === 'restore' ? (
        <button
          type="button"
          className={ui.button}
          disabled={busy}
          onClick={() =>
            void run(async () => (await api.call('RestoreSession', { id: session.id, ...(bootId ? { expected_daemon_boot_id: bootId } : {}) }), `restored ${session.title}`))
          }
        >
          Restore
        </button>
      ) : null}
      {session.can_kill ? (
        <ConfirmButton
          label="Kill"
          question={`Kill ${session.title}?`}
          details={killWords(session)}
          onConfirm={() => void run(async () => (await api.call('KillSession', { id: session.id }), `killed ${session.title}`))}
        />
      ) : null}
      <Outcome outcome={outcome} />
    </div>
  )
}

/** Hands the work to another agent (or account) in place: same worktree, branch and tmux session. */
function Handoff({ session }: { session: Session }) {
  const [programs, setPrograms] = useState<string[]>([])
  const [to, setTo] = useState('')
  const { busy, outcome, run } = useAction()
  useEffect(() => {
    void api.call('ListPrograms', {}).then((listed) => setPrograms(listed.programs.filter((p) => p.available && p.name !== session.program).map((p) => p.name)))
  }, [session.program])
  return (
    <span className="flex items-center gap-1" data-testid="handoff">
      <select value={to} onChange={(event) => setTo(event.target.value)} aria-label="hand off to" className={ui.field}>
        <option value="">(hand off to…)</option>
        {programs.map((name) => (
          <option key={name}>{name}</option>
        ))}
      </select>
      <button
        type="button"
        className={ui.button}
        disabled={busy || !to}
        onClick={() => void run(async () => `handed off to ${(await api.call('HandoffSession', { id: session.id, to })).to.program}`)}
      >
        Hand off
      </button>
      <Outcome outcome={outcome} />
    </span>
  )
}
