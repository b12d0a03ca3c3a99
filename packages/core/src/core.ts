import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { Static } from 'typebox'
import type { ServicePaths, SnapshotResponse, SuggestSessionNameResponse } from '@svc/protocol'
import type { Config } from './config/config.js'
import type { Clock } from './infra/clock.js'
import { selectSessions, type SnapshotFilters } from './sessions/query.js'
import { suggestName } from './sessions/names.js'
import { encodeSession, type SessionRecord } from './sessions/record.js'

export type Phase = 'warming' | 'ready'

/**
 * The daemon's domain actor: it owns all mutable state. Reads take a consistent view
 * of memory; mutations are serialized.
 */
export class Core {
  /** Identifies this process; clients compare it to notice a restart. */
  readonly bootId = randomBytes(8).toString('hex')
  private currentPhase: Phase = 'warming'
  private readonly sessions = new Map<string, SessionRecord>()

  constructor(
    readonly paths: ServicePaths,
    readonly config: Config,
    readonly log: Logger,
    readonly clock: Clock,
  ) {}

  get phase(): Phase {
    return this.currentPhase
  }

  /** Brings back durable state, then opens the session and task routes. */
  async restore(): Promise<void> {
    this.currentPhase = 'ready'
    this.log.info({ sessions: this.sessions.size }, 'restore complete')
  }

  /** Stops background work (timers, watchers, poll loops); state on disk is already current. */
  async close(): Promise<void> {}

  snapshot(filters: SnapshotFilters): Static<typeof SnapshotResponse> {
    const instances = selectSessions(this.sessions.values(), filters).map((record) => encodeSession(record, this.bootId))
    return { instances, boot_id: this.bootId }
  }

  suggestSessionName(): Static<typeof SuggestSessionNameResponse> {
    return { name: suggestName(new Set([...this.sessions.values()].map((record) => record.title))) }
  }
}
