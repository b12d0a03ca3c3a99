import { fleetGroups, type AttentionReason, type Fleet, type FleetOrder } from '@svc/protocol'
import type { Session } from './types.js'

export type Row =
  | { kind: 'group'; key: string; name: string; count: number }
  | { kind: 'session'; key: string; session: Session; attention: AttentionReason | undefined }

/** The list as shown (the order both UIs share, see @svc/protocol's fleet-order.ts): a row per group heading and per session. */
export function sessionRows(fleet: Fleet, order: FleetOrder): Row[] {
  return fleetGroups(fleet, order).flatMap((group): Row[] => [
    { kind: 'group', key: group.key, name: group.name, count: group.sessions.length },
    ...group.sessions.map((session): Row => ({ kind: 'session', key: session.id, session, attention: fleet.attention.get(session.id) })),
  ])
}

/** The session rows' ids, in order: what up and down move through. */
function sessionIds(rows: readonly Row[]): string[] {
  return rows.flatMap((row) => (row.kind === 'session' ? [row.session.id] : []))
}

/** The selection after moving `step` rows from `current`; the first session when the current one is gone. */
export function moveSelection(rows: readonly Row[], current: string | undefined, step: number): string | undefined {
  const ids = sessionIds(rows)
  const at = current === undefined ? -1 : ids.indexOf(current)
  if (at === -1) return ids[0]
  return ids[Math.min(ids.length - 1, Math.max(0, at + step))]
}

/** The rows that fit in `height`, scrolled so the selected one shows with its group header when it can. */
export function visibleWindow(rows: readonly Row[], selected: string | undefined, height: number): Row[] {
  if (rows.length <= height) return [...rows]
  const at = Math.max(0, rows.findIndex((row) => row.kind === 'session' && row.key === selected))
  const start = Math.min(Math.max(0, at - Math.floor(height / 2)), rows.length - height)
  return rows.slice(start, start + height)
}
