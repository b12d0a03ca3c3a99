import { fleetGroups, type Fleet, type FleetGroup } from '@svc/protocol/browser'

// The fleet and its order are @svc/protocol's (fleet.ts, fleet-order.ts), shared with the terminal UI.
export type { Fleet }
export type ProjectGroup = FleetGroup

/** The fleet page's list: by project, each session marked where it needs the user; `filter` as the terminal UI's. */
export function groups(fleet: Fleet, filter: string): ProjectGroup[] {
  return fleetGroups(fleet, { filter, attentionFirst: false })
}
