import type { EventFrame, FeedFrame } from './events.js'
import { applyFrame, EMPTY_FLEET, resynced, seen, type Fleet, type FleetRead } from './fleet.js'

/** Why the fleet changed: a read, an event, or a session looked at. */
export type FleetChange = 'read' | 'event' | 'seen'

export interface FleetFollowerOptions {
  /** Reads the daemon's state (`readFleet` with the client at hand). */
  read(): Promise<FleetRead>
  changed(fleet: Fleet, change: FleetChange): void
  /** A read failed; the next hello, gap or `resync()` reads again. */
  failed(error: unknown): void
}

/**
 * Keeps a fleet current from the event feed: the frames of one or more connections are
 * given to `take` as they come. The feed has no replay, so the daemon is read again
 * after every hello (the first, and each after a drop or a restart), after a gap in
 * `seq` (a frame missed), and on `projects.changed` (which carries no data). Events
 * show at once, and again on top of a read that was under way when they came.
 */
export class FleetFollower {
  private current: Fleet = EMPTY_FLEET
  /** The last `seq` taken in; undefined before the first hello. */
  private seq: number | undefined
  /** The read under way and the frames taken in since it began; a newer read replaces it. */
  private reading: { since: EventFrame[] } | undefined

  constructor(private readonly options: FleetFollowerOptions) {}

  get fleet(): Fleet {
    return this.current
  }

  take(frame: FeedFrame): void {
    if (frame.type === 'hello') {
      this.seq = frame.data.seq
      void this.resync()
      return
    }
    const gap = this.seq !== undefined && frame.seq !== this.seq + 1
    this.seq = frame.seq
    this.reading?.since.push(frame)
    this.set(applyFrame(this.current, frame), 'event')
    if (gap || frame.type === 'projects.changed') void this.resync()
  }

  /** Reads the daemon again; settles once this read is applied, overtaken by a newer one, or failed. */
  async resync(): Promise<void> {
    const reading = { since: [] as EventFrame[] }
    this.reading = reading
    let read: FleetRead
    try {
      read = await this.options.read()
    } catch (error) {
      if (this.reading !== reading) return
      this.reading = undefined
      return this.options.failed(error)
    }
    if (this.reading !== reading) return
    this.reading = undefined
    this.set(resynced(this.current, read, reading.since), 'read')
  }

  /** The session was looked at: its attention mark goes. */
  markSeen(id: string): void {
    this.set(seen(this.current, id), 'seen')
  }

  private set(fleet: Fleet, change: FleetChange): void {
    if (fleet === this.current) return
    this.current = fleet
    this.options.changed(fleet, change)
  }
}
