import { isLoopbackUrl } from '../net.js'
import { idleReason } from './idle.js'
import { selectSessions, type SnapshotFilters } from './query.js'
import { encodeSession, type SessionRecord, type SessionWire } from './record.js'

/** Snapshot answers kept, one per distinct filter set. */
const SNAPSHOTS_KEPT = 16
/**
 * A filter set longer than this as JSON is answered but not kept: no real one is, and a
 * hostile body's filters (a repo_id of megabytes) would be held past its answer.
 */
const KEPT_FILTERS_MAX_CHARS = 1024
/** Values per session in `seen`: the record, its revision, status, liveness and in-flight mark. */
const SEEN_WIDTH = 5

/**
 * The sessions as clients see them, each one's JSON cached until it is saved again or
 * its lifecycle or in-flight state moves, so a Snapshot of a large fleet costs a join;
 * and whole Snapshot answers, kept while one cheap pass over the fleet finds nothing
 * moved, so a repeated Snapshot costs that pass.
 */
export class WireCache {
  /** Bumped by every save. */
  private readonly revisions = new Map<string, number>()
  private readonly json = new Map<string, { stamp: string; json: string }>()
  /** What the fleet showed at the last Snapshot, SEEN_WIDTH values per session in map order. */
  private seen: unknown[] = []
  /** Bumped whenever a Snapshot finds that something moved since the one before. */
  private generation = 0
  private readonly snapshots = new Map<string, { generation: number; json: string }>()

  constructor(
    private readonly bootId: string,
    /** The fleet a Snapshot reads: the session table's records. */
    private readonly records: ReadonlyMap<string, SessionRecord>,
    private readonly inFlight: (id: string) => boolean,
  ) {}

  /** The record changed: its cached JSON no longer holds. */
  changed(id: string): void {
    this.revisions.set(id, (this.revisions.get(id) ?? 0) + 1)
  }

  forget(id: string): void {
    this.revisions.delete(id)
    this.json.delete(id)
  }

  /** The session object as clients see it. */
  describe(record: SessionRecord): SessionWire {
    return encodeSession(record, this.bootId, idleReason(record, this.inFlight(record.id)), isLoopbackUrl)
  }

  /** The Snapshot response as JSON text. */
  snapshotJson(filters: SnapshotFilters): string {
    const { records } = this
    if (this.moved(records)) this.generation++
    const key = JSON.stringify(filters)
    const keep = key.length <= KEPT_FILTERS_MAX_CHARS
    const kept = keep ? this.snapshots.get(key) : undefined
    if (kept?.generation === this.generation) return kept.json
    const instances = selectSessions(records.values(), filters).map((record) => this.jsonOf(record))
    const json = `{"instances":[${instances.join(',')}],"boot_id":${JSON.stringify(this.bootId)}}`
    if (!keep) return json
    if (this.snapshots.size >= SNAPSHOTS_KEPT) this.snapshots.clear()
    this.snapshots.set(key, { generation: this.generation, json })
    return json
  }

  /** Whether any session was added, removed, saved, or moved in lifecycle or in-flight state since the last look. */
  private moved(records: ReadonlyMap<string, SessionRecord>): boolean {
    const seen = this.seen
    let moved = seen.length !== records.size * SEEN_WIDTH
    let at = 0
    for (const record of records.values()) {
      const revision = this.revisions.get(record.id) ?? 0
      const inFlight = this.inFlight(record.id)
      moved ||=
        seen[at] !== record ||
        seen[at + 1] !== revision ||
        seen[at + 2] !== record.status ||
        seen[at + 3] !== record.liveness ||
        seen[at + 4] !== inFlight
      seen[at] = record
      seen[at + 1] = revision
      seen[at + 2] = record.status
      seen[at + 3] = record.liveness
      seen[at + 4] = inFlight
      at += SEEN_WIDTH
    }
    seen.length = at
    return moved
  }

  /** The session object as clients see it, as JSON text. */
  jsonOf(record: SessionRecord): string {
    const stamp = `${this.revisions.get(record.id) ?? 0}:${record.status}:${record.liveness ?? 0}:${this.inFlight(record.id)}`
    const cached = this.json.get(record.id)
    if (cached?.stamp === stamp) return cached.json
    const json = JSON.stringify(this.describe(record))
    this.json.set(record.id, { stamp, json })
    return json
  }
}
