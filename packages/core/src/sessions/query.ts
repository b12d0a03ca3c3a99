import type { Static } from 'typebox'
import { LIVENESS_NAMES, isLivenessName, livenessName, type SnapshotRequest, quote } from '@svc/protocol'
import { InvalidRequest } from '../errors.js'
import type { SessionRecord } from './record.js'

export type SnapshotFilters = Static<typeof SnapshotRequest>

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

/** Milliseconds since the epoch of an RFC 3339 timestamp, or an InvalidRequest naming the field. */
export function parseTimestamp(text: string, field: string): number {
  const time = RFC3339.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(time)) throw new InvalidRequest(`${field} must be an RFC 3339 timestamp such as 2026-01-02T15:04:05Z, got ${quote(text)}`)
  return time
}

type Queryable = Pick<SessionRecord, 'repo_id' | 'title' | 'created_at' | 'status' | 'liveness'>

/** Stable order: by repository id, then title. */
export function compareSessions(a: Queryable, b: Queryable): number {
  return a.repo_id < b.repo_id ? -1 : a.repo_id > b.repo_id ? 1 : a.title < b.title ? -1 : a.title > b.title ? 1 : 0
}

/**
 * `Snapshot` selection: repo scope, then the additive filters, then the limit, over
 * the stable order. Filters are validated before anything is selected.
 */
export function selectSessions<T extends Queryable>(records: Iterable<T>, filters: SnapshotFilters): T[] {
  const statuses = filters.statuses ?? []
  for (const word of statuses) {
    if (!isLivenessName(word)) {
      throw new InvalidRequest(`unknown status ${quote(word)} in statuses; use ${LIVENESS_NAMES.join(', ')}`)
    }
  }
  if (filters.limit !== undefined && filters.limit <= 0) {
    throw new InvalidRequest(`limit must be a positive integer, got ${filters.limit}`)
  }
  const after = filters.created_after ? parseTimestamp(filters.created_after, 'created_after') : undefined
  const wanted = new Set<string>(statuses)

  const selected = [...records]
    .filter((record) => !filters.repo_id || record.repo_id === filters.repo_id)
    .filter((record) => !filters.live || livenessName(record) !== 'archived')
    .filter((record) => wanted.size === 0 || wanted.has(livenessName(record)))
    .filter((record) => after === undefined || Date.parse(record.created_at) > after)
    .sort(compareSessions)
  return filters.limit === undefined ? selected : selected.slice(0, filters.limit)
}
