import { isLoopbackUrl } from '../net.js'
import { idleReason } from './idle.js'
import { encodeSession, type SessionRecord, type SessionWire } from './record.js'

/**
 * The sessions as clients see them, each one's JSON cached until it is saved again or
 * its lifecycle or in-flight state moves, so a Snapshot of a large fleet costs a join.
 */
export class WireCache {
  /** Bumped by every save. */
  private readonly revisions = new Map<string, number>()
  private readonly json = new Map<string, { stamp: string; json: string }>()

  constructor(
    private readonly bootId: string,
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
  snapshotJson(records: SessionRecord[]): string {
    const instances = records.map((record) => this.jsonOf(record))
    return `{"instances":[${instances.join(',')}],"boot_id":${JSON.stringify(this.bootId)}}`
  }

  private jsonOf(record: SessionRecord): string {
    const stamp = `${this.revisions.get(record.id) ?? 0}:${record.status}:${record.liveness ?? 0}:${this.inFlight(record.id)}`
    const cached = this.json.get(record.id)
    if (cached?.stamp === stamp) return cached.json
    const json = JSON.stringify(this.describe(record))
    this.json.set(record.id, { stamp, json })
    return json
  }
}
