import { useState } from 'react'
import { SessionRow } from '../components/SessionRow'
import { groups, type Fleet } from '../fleet-state'
import { useFleet } from '../use-fleet'

export function FleetPage() {
  return (
    <>
      <h1 className="visually-hidden">Sessions</h1>
      <FleetList fleet={useFleet().fleet} />
    </>
  )
}

/** The fleet as shown: the bench renders this with sample fleets. */
export function FleetList({ fleet }: { fleet: Fleet }) {
  const [filter, setFilter] = useState('')
  const shown = groups(fleet, filter)
  return (
    <section className="fleet">
      <input type="search" aria-label="filter sessions" placeholder="Filter by title, branch, program or state" value={filter} onChange={(event) => setFilter(event.target.value)} />
      {shown.length === 0 ? <p className="empty">{fleet.sessions.size === 0 ? 'No sessions yet: start one from New.' : 'Nothing matches.'}</p> : null}
      {shown.map((group) => (
        <div key={group.repoPath} className="group">
          <h2>{group.repoPath}</h2>
          {group.sessions.map((session) => (
            <SessionRow key={session.id} session={session} attention={fleet.attention.get(session.id)} />
          ))}
        </div>
      ))}
    </section>
  )
}
