import { idleWords, killWords, remoteWords } from '@svc/protocol/browser'
import { useEffect, useState } from 'react'
import { api, type Session } from '../api'
import { ConfirmButton } from '../components/Confirm'
import { PromptForm } from '../components/PromptForm'
import { TabView } from '../components/TabView'
import { fleetStore } from '../fleet-store'
import { useFleet } from '../use-fleet'
import { Outcome, useAction } from '../use-action'

export function SessionPage({ id }: { id: string }) {
  const { fleet } = useFleet()
  const session = fleet.sessions.get(id)
  const [tabIndex, setTabIndex] = useState(0)
  useEffect(() => fleetStore.markSeen(id), [id, fleet.attention])
  if (!session) return <p className="empty">{fleet.bootId ? 'This session no longer exists.' : 'Loading…'}</p>
  const tab = session.tabs[tabIndex] ?? session.tabs[0]
  return (
    <section className="session">
      <div className="session-head">
        <h1>{session.title}</h1>
        <span className={`state state-${session.liveness_name}`}>{session.liveness_name || session.status_name}</span>
        <span className="reason">{idleWords(session)}</span>
        <span className="meta">
          {[session.program, session.branch, remoteWords(session)].filter(Boolean).join(' · ')}
        </span>
      </div>
      <div className="tabs" role="group" aria-label="tabs">
        {session.tabs.map((entry, index) => (
          <button
            key={entry.id ?? entry.name}
            type="button"
            className={index === tabIndex ? 'current' : ''}
            aria-pressed={index === tabIndex}
            onClick={() => setTabIndex(index)}
          >
            {entry.name}
          </button>
        ))}
        <NewShellTab session={session} />
      </div>
      {tab ? <TabView session={session} tab={tab} /> : null}
      <PromptForm session={session} />
      <Lifecycle session={session} bootId={fleet.bootId} />
    </section>
  )
}

function NewShellTab({ session }: { session: Session }) {
  const { outcome, run } = useAction()
  return (
    <>
      <button type="button" onClick={() => void run(async () => void (await api.call('CreateTab', { id: session.id, shell: true })))}>
        + shell
      </button>
      <Outcome outcome={outcome} />
    </>
  )
}

function Lifecycle({ session, bootId }: { session: Session; bootId: string }) {
  const { busy, outcome, run } = useAction()
  const live = session.lifecycle_action === 'archive'
  return (
    <div className="actions">
      {live ? (
        <button type="button" disabled={busy} onClick={() => void run(async () => `archived to ${(await api.call('ArchiveSession', { id: session.id })).archived_path}`)}>
          Archive
        </button>
      ) : null}
      {session.lifecycle_action === 'restore' ? (
        <button
          type="button"
          disabled={busy}
          onClick={() => void run(async () => void (await api.call('RestoreSession', { id: session.id, ...(bootId ? { expected_daemon_boot_id: bootId } : {}) })))}
        >
          Restore
        </button>
      ) : null}
      {session.can_kill ? (
        <ConfirmButton
          label="Kill"
          question={`Kill ${session.title}?`}
          details={killWords(session)}
          onConfirm={() => void run(async () => void (await api.call('KillSession', { id: session.id })))}
        />
      ) : null}
      {session.can_handoff ? <Handoff session={session} /> : null}
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
    <span className="handoff">
      <select value={to} onChange={(event) => setTo(event.target.value)} aria-label="hand off to">
        <option value="">(hand off to…)</option>
        {programs.map((name) => (
          <option key={name}>{name}</option>
        ))}
      </select>
      <button
        type="button"
        disabled={busy || !to}
        onClick={() => void run(async () => `handed off to ${(await api.call('HandoffSession', { id: session.id, to })).to.program}`)}
      >
        Hand off
      </button>
      <Outcome outcome={outcome} />
    </span>
  )
}
