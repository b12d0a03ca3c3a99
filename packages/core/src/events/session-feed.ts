import type { AttentionReason, EventKind } from '@svc/protocol'
import { idleReason } from '../sessions/idle.js'
import { stateOf, type SessionRecord, type State } from '../sessions/record.js'
import type { SessionChanges, SessionFeedFactory } from '../sessions/table.js'
import type { WireCache } from '../sessions/wire-cache.js'
import type { EventBus } from './bus.js'

type SessionKind = Extract<EventKind, 'session.created' | 'session.updated' | 'session.archived' | 'session.restored'>

/** What the last save showed, to tell a transition that needs the user from a repeat. */
interface Seen {
  state: State | undefined
  attempt: string | undefined
  asks: string | undefined
}

/** The session feed the session table makes for itself, publishing to `bus`. */
export function sessionFeed(bus: EventBus): SessionFeedFactory {
  return (table) => new SessionFeed(bus, table.records, table.wire, (id) => table.inFlight(id))
}

/**
 * Session events, derived from the session objects exactly as Snapshot encodes them: an
 * event goes out when that encoding changed since the last one sent, never for a read.
 * Per session at most one per poll tick: the first change in a tick is sent at once,
 * later ones are held and sent (as the state then) when the tick ends. A change made
 * inside an operation is sent when the operation ends, as the session is then: what an
 * operation shows only while in flight (no idle reason, `deleting` on the way to
 * archived) is never sent on its own.
 */
export class SessionFeed implements SessionChanges {
  private readonly sent = new Map<string, { json: string; archived: boolean }>()
  private readonly seen = new Map<string, Seen>()
  private readonly held = new Map<string, SessionKind>()
  private readonly sentThisTick = new Set<string>()
  /** Restores saved inside an operation still under way, announced as such when it ends. */
  private readonly restoring = new Set<string>()

  constructor(
    private readonly bus: EventBus,
    private readonly records: ReadonlyMap<string, SessionRecord>,
    private readonly wire: WireCache,
    private readonly inFlight: (id: string) => boolean,
  ) {}

  /** The fleet as restored is the baseline: nothing in it is news. */
  seed(): void {
    for (const record of this.records.values()) {
      this.sent.set(record.id, { json: this.wire.jsonOf(record), archived: stateOf(record) === 'archived' })
      this.seen.set(record.id, seenOf(record))
    }
  }

  /** A record was saved (durably or atomically): any call for the user goes out, and its change unless an operation is under way. */
  saved(record: SessionRecord, restored = false): void {
    this.attention(record)
    if (!this.inFlight(record.id)) return this.check(record.id, restored ? 'session.restored' : undefined)
    if (restored) this.restoring.add(record.id)
  }

  /** The operations on the session (or its creation) ended: what they changed goes out. */
  settled(id: string): void {
    // A creation's first prompt ends its operation before the creation itself is over.
    if (this.inFlight(id)) return
    const restored = this.restoring.delete(id)
    this.check(id, restored ? 'session.restored' : undefined)
  }

  removed(record: SessionRecord): void {
    this.held.delete(record.id)
    this.restoring.delete(record.id)
    this.sent.delete(record.id)
    this.seen.delete(record.id)
    this.bus.publish('session.killed', { id: record.id, title: record.title, repo_id: record.repo_id })
  }

  /** A poll tick ended: what was held goes out as the session is now. */
  tick(): void {
    this.sentThisTick.clear()
    const held = [...this.held]
    this.held.clear()
    for (const [id, kind] of held) this.check(id, kind)
  }

  private check(id: string, hint?: SessionKind): void {
    const record = this.records.get(id)
    if (!record) return
    const json = this.wire.jsonOf(record)
    const before = this.sent.get(id)
    if (before?.json === json) return
    const archived = stateOf(record) === 'archived'
    const kind: SessionKind =
      before === undefined ? 'session.created' : hint ?? (archived && !before.archived ? 'session.archived' : 'session.updated')
    if (this.sentThisTick.has(id)) {
      // A specific kind held earlier in the tick outranks a plain update.
      if (kind !== 'session.updated' || !this.held.has(id)) this.held.set(id, kind)
      return
    }
    this.sentThisTick.add(id)
    this.sent.set(id, { json, archived })
    this.bus.publish(kind, this.wire.describe(record), json)
  }

  /** An agent settled after working, hit a usage limit, or missed a prompt: its user is needed. */
  private attention(record: SessionRecord): void {
    const now = seenOf(record)
    const before = this.seen.get(record.id)
    this.seen.set(record.id, now)
    if (before === undefined) return
    const reason = attentionReason(record, before, now)
    if (reason === undefined) return
    this.bus.publish('session.attention', { id: record.id, title: record.title, repo_id: record.repo_id, reason })
  }
}

function seenOf(record: SessionRecord): Seen {
  return { state: stateOf(record), attempt: record.last_prompt_attempt_at, asks: record.agent_asks }
}

function attentionReason(record: SessionRecord, before: Seen, now: Seen): AttentionReason | undefined {
  if (now.state === 'limit-reached' && before.state !== 'limit-reached') return 'usage-limit'
  if (now.attempt !== before.attempt && record.last_prompt_delivery_status === 'not-delivered') return 'prompt-not-delivered'
  if (now.asks !== undefined && now.asks !== before.asks) return 'agent-asks'
  if (before.state === 'running' && now.state === 'ready' && idleReason(record, false) === 'settled-after-pane-change') return 'settled'
  return undefined
}
