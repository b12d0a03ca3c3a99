import { excerpt, quote } from '@svc/protocol'
import { InvalidRequest, MutationCommitted, NotFound } from '../errors.js'
import type { Clock } from '../infra/clock.js'
import { KeyedQueue } from '../serial.js'
import { setState, type SessionRecord, type State } from './record.js'
import type { SessionStore } from './store.js'
import { WireCache } from './wire-cache.js'

export interface SessionRef {
  title?: string
  repo_id?: string
  id?: string
}

export type SettledListener = (id: string, how: 'settled' | 'removed') => void

/**
 * What hears of every save, settle and removal: the session feed (events/session-feed.ts),
 * which sits above the domain and turns them into events.
 */
export interface SessionChanges {
  /** The fleet as restored is the baseline. */
  seed(): void
  /** A record was saved; `restored` names a restore. */
  saved(record: SessionRecord, restored: boolean): void
  /** The operations on the session (or its creation) ended. */
  settled(id: string): void
  removed(record: SessionRecord): void
  /** A poll tick ended. */
  tick(): void
}

/** Makes the feed that hears of the table's changes; it may read the table's records, wire cache and operations. */
export type SessionFeedFactory = (table: Pick<SessionTable, 'records' | 'wire' | 'inFlight'>) => SessionChanges

/** The record was saved before `error` struck: the operation must not be retried. */
export function committed(done: string, error: unknown): MutationCommitted {
  return new MutationCommitted(`${done}, but ${(error as Error).message}`)
}

/**
 * The session records and the bookkeeping every part of the sessions actor shares:
 * operations on one session run one at a time through its queue, git work on one
 * repository through the repository's queue.
 */
export class SessionTable {
  readonly records = new Map<string, SessionRecord>()
  /** What an operation changed is announced when its session's queue drains. */
  readonly ops = new KeyedQueue((id) => this.feed.settled(id))
  readonly repos = new KeyedQueue()
  /** Sessions being created: not yet in their queue, already in the map. */
  readonly creating = new Set<string>()
  readonly archiving = new Set<string>()
  readonly wire: WireCache
  readonly feed: SessionChanges
  private readonly settledListeners: SettledListener[] = []

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    bootId: string,
    feed: SessionFeedFactory,
  ) {
    this.wire = new WireCache(bootId, this.records, (id) => this.inFlight(id))
    this.feed = feed(this)
  }

  get now(): Date {
    return this.clock.now()
  }

  inFlight(id: string): boolean {
    return this.creating.has(id) || this.ops.busy(id)
  }

  /**
   * Persists a record; every change to one must come through here (the wire cache and
   * the event feed rely on it). `restored` names a restore, which the feed reports as such.
   */
  async save(record: SessionRecord, durable = true, restored = false): Promise<void> {
    this.wire.changed(record.id)
    await this.store.save(record, durable)
    this.feed.saved(record, restored)
  }

  /** A session's creation is over (its first prompt included): it is an ordinary session now. */
  created(id: string): void {
    this.creating.delete(id)
    this.feed.settled(id)
  }

  /** Deletes the stored record and forgets it. */
  async remove(record: SessionRecord): Promise<void> {
    await this.store.remove(record.id)
    this.forget(record.id)
    this.feed.removed(record)
  }

  forget(id: string): void {
    this.records.delete(id)
    this.wire.forget(id)
  }

  touch(record: SessionRecord): void {
    record.updated_at = this.now.toISOString()
  }

  /** Applies a lifecycle state; `updated_at` moves only when something really changed. */
  transition(record: SessionRecord, state: State): boolean {
    const changed = setState(record, state)
    if (changed) this.touch(record)
    return changed
  }

  onSettled(listener: SettledListener): void {
    this.settledListeners.push(listener)
  }

  emit(id: string, how: 'settled' | 'removed'): void {
    for (const listener of this.settledListeners) listener(id, how)
  }

  /** The session a request names: by id, else by title (and repo_id when titles repeat). */
  find(ref: SessionRef): SessionRecord {
    if (ref.id) {
      const record = this.records.get(ref.id)
      if (!record) throw new NotFound(`no session with id ${excerpt(ref.id)}`)
      return record
    }
    if (!ref.title) throw new InvalidRequest('title or id is required')
    const matches = [...this.records.values()].filter(
      (record) => record.title === ref.title && (!ref.repo_id || record.repo_id === ref.repo_id),
    )
    if (matches.length === 0) {
      throw new NotFound(`no session titled ${quote(ref.title)}${ref.repo_id ? ` in repository ${ref.repo_id}` : ''}`)
    }
    if (matches.length > 1) {
      throw new InvalidRequest(
        `several sessions are titled ${quote(ref.title)}; pass repo_id (one of ${matches.map((m) => m.repo_id).join(', ')})`,
      )
    }
    return matches[0] as SessionRecord
  }

  inRepo(repoId: string, title: string): SessionRecord | undefined {
    return [...this.records.values()].find((record) => record.repo_id === repoId && record.title === title)
  }

  ofRepository(repoId: string): SessionRecord[] {
    return [...this.records.values()].filter((record) => record.repo_id === repoId)
  }

  /** Runs `work` on one session, alone: no other operation and no observation interleaves. */
  operate<T>(ref: SessionRef, work: (record: SessionRecord) => Promise<T>): Promise<T> {
    const id = this.find(ref).id
    return this.ops.run(id, async () => {
      const record = this.records.get(id)
      if (!record) throw new NotFound(`session ${ref.title ?? id} was removed`)
      return work(record)
    })
  }
}
