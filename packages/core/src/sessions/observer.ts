import type { Logger } from 'pino'
import type { DeliveryStatus } from '@svc/protocol'
import { agentOf } from '../agents/agent.js'
import type { Config } from '../config/config.js'
import type { Clock } from '../infra/clock.js'
import type { Tmux } from '../infra/tmux.js'
import { limitBanner, parseResetTime, showsBanner } from './limits.js'
import { isLive, runtimeReplaced, stateOf, type SessionRecord, type State } from './record.js'
import { backoffMs, oneLine, RECOVERY_ATTEMPTS, survivalMs, type RecoveryState } from './recovery.js'
import type { AgentScreens } from './agent-screens.js'
import { agentTab, type Panes } from './runtime.js'
import { PaneWatch, type Sighting } from './watch.js'

/** What the observer needs from the sessions actor that owns the records. */
export interface ObserverHost {
  records(): Iterable<SessionRecord>
  get(id: string): SessionRecord | undefined
  /** An operation holds the session: it is not observed meanwhile. */
  inFlight(id: string): boolean
  /** A person holds a poll-pause lease: the pane's changes are theirs, not the agent's. */
  leased(id: string): boolean
  /** Runs `work` in the session's own queue. */
  exclusive<T>(id: string, work: () => Promise<T>): Promise<T>
  save(record: SessionRecord, durable?: boolean): Promise<void>
  transition(record: SessionRecord, state: State): boolean
  touch(record: SessionRecord): void
  settled(id: string): void
  deliverInto(record: SessionRecord, prompt: string): Promise<DeliveryStatus>
  resumeFromLimit(id: string): Promise<void>
  /** A poll tick ended (session events are coalesced per tick). */
  ticked(): void
}

export interface ObserverOptions {
  config: Config
  log: Logger
  clock: Clock
}

const nameOf = (record: SessionRecord) => agentTab(record).tmux_name as string

function deathNote(sighting: Extract<Sighting, { kind: 'dead' }>): string {
  const status = sighting.exitStatus === undefined ? 'exited' : `exited with status ${sighting.exitStatus}`
  return `the agent ${status} right after restart${sighting.lastWords ? `: ${sighting.lastWords}` : ''}`
}

/**
 * The poll loop: every `daemon_poll_interval` it looks at all idle live sessions (one
 * tmux process for the fleet), moves them between running, ready, limit-reached, lost
 * and dead, recovers lost ones within their attempt budget, resumes usage limits when
 * asked to, and delivers prompts deferred while a terminal was attached.
 */
export class Observer {
  private readonly watch: PaneWatch
  private readonly recovery = new Map<string, RecoveryState>()
  private readonly resumeAt = new Map<string, number>()
  private poller: NodeJS.Timeout | undefined
  private ticking: Promise<void> | undefined

  constructor(
    private readonly host: ObserverHost,
    tmux: Tmux,
    private readonly panes: Panes,
    private readonly screens: AgentScreens,
    private readonly options: ObserverOptions,
  ) {
    this.watch = new PaneWatch(tmux)
  }

  start(): void {
    const interval = () => this.options.config.get('daemon_poll_interval')
    const loop = () => {
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined
        if (this.poller !== undefined) this.poller = setTimeout(loop, interval())
      })
    }
    this.poller = setTimeout(loop, interval())
    // A new interval applies now, not after the old one ran out (60 s, say); a running tick schedules with it.
    this.options.config.onChange((_next, _previous, key) => {
      if (key !== 'daemon_poll_interval' || this.poller === undefined || this.ticking !== undefined) return
      clearTimeout(this.poller)
      this.poller = setTimeout(loop, interval())
    })
  }

  async close(): Promise<void> {
    clearTimeout(this.poller)
    this.poller = undefined
    await this.ticking
  }

  /** Takes the pane as the daemon left it (after its own typing) as the new baseline. */
  rebase(record: SessionRecord, screen?: string): Promise<void> {
    return this.watch.rebase(nameOf(record), screen)
  }

  /** Its runtime was replaced or removed: nothing seen or scheduled for it still holds. */
  forget(record: SessionRecord): void {
    this.watch.forget(nameOf(record))
    this.screens.forget(record)
    this.recovery.delete(record.id)
    this.resumeAt.delete(record.id)
  }

  resumed(id: string): void {
    this.resumeAt.delete(id)
  }

  /** Starts automatic recovery of a lost session, unless it already gave up. */
  lost(record: SessionRecord): void {
    if (record.lost_restore_failure || this.recovery.has(record.id)) return
    const base = this.options.config.get('lost_restore_backoff')
    this.recovery.set(record.id, { failures: 0, nextAt: Date.now() + backoffMs(base, 0), awaitingCheck: false, spawnedAt: 0 })
  }

  /** One poll tick: observe every idle live session, then recover, resume and deliver what is due. */
  async tick(): Promise<void> {
    try {
      const watched = [...this.host.records()].filter(
        (record) => !this.host.inFlight(record.id) && !this.paused(record) && (isLive(record) || this.recovery.get(record.id)?.awaitingCheck),
      )
      const sightings = await this.watch.look(watched.map(nameOf))
      for (const record of watched) {
        const sighting = sightings.get(nameOf(record))
        // A lease taken while tmux was asked (a terminal attaching) voids the look: it may hold the person's doing.
        if (sighting && this.host.get(record.id) && !this.host.inFlight(record.id) && !this.paused(record)) await this.observe(record, sighting)
      }
      await this.recoverDue()
      await this.resumeDue()
      await this.deliverDeferred(sightings)
    } catch (error) {
      this.options.log.warn({ err: error }, 'poll tick failed')
    } finally {
      this.host.ticked()
    }
  }

  /**
   * A leased session is not looked at, and its baseline is dropped: what the person did
   * (typing, resizing) is no evidence, so the first look after the lease only sets a new one.
   */
  private paused(record: SessionRecord): boolean {
    if (!this.host.leased(record.id)) return false
    this.watch.forget(nameOf(record))
    return true
  }

  private async observe(record: SessionRecord, sighting: Sighting): Promise<void> {
    const { host } = this
    const attempt = this.recovery.get(record.id)
    if (attempt?.awaitingCheck) {
      if (sighting.kind !== 'alive') {
        await this.attemptFailed(record, sighting.kind === 'gone' ? 'the tmux session vanished after restart' : deathNote(sighting))
      } else if (Date.now() - attempt.spawnedAt >= survivalMs(this.options.config.get('daemon_poll_interval'))) {
        await this.recovered(record)
      }
      return
    }
    const before = stateOf(record)
    if (sighting.kind === 'gone') {
      host.transition(record, 'lost')
      this.lost(record)
      await host.save(record)
      return
    }
    if (sighting.kind === 'dead') {
      host.transition(record, 'dead')
      await host.save(record)
      return
    }
    // One look is no evidence: a busy agent seen first after a restart is not "settled".
    if (sighting.first) return
    const seen = await this.screens.look(record, sighting.text)
    if (seen?.changed) host.touch(record)
    // A known agent's interrupt hint says it works even between spinner frames; a question waits for an answer.
    const working = seen?.reading.gate ? false : sighting.changed || seen?.reading.busy === true
    if (working) {
      host.transition(record, 'running')
      if (sighting.changed) {
        record.last_pane_churn_at = this.options.clock.now().toISOString()
        host.touch(record)
      }
      await host.save(record, seen?.changed === true)
      return
    }
    if (seen?.changed) await host.save(record)
    const banner = limitBanner(agentOf(record.program), this.options.config.get('limit_patterns'))
    const next = showsBanner(banner, sighting.text) ? 'limit-reached' : 'ready'
    if (!host.transition(record, next)) return
    await host.save(record, false)
    if (next === 'limit-reached') this.scheduleResume(record, sighting.text)
    if (before === 'running' && next === 'ready') host.settled(record.id)
  }

  private async recoverDue(): Promise<void> {
    for (const [id, attempt] of this.recovery) {
      const record = this.host.get(id)
      if (!record || attempt.awaitingCheck || Date.now() < attempt.nextAt || this.host.inFlight(id)) continue
      await this.host.exclusive(id, async () => {
        try {
          await this.panes.teardown(record)
          this.watch.forget(nameOf(record))
          this.screens.forget(record)
          await this.panes.spawnAll(record)
          attempt.awaitingCheck = true
          attempt.spawnedAt = Date.now()
        } catch (error) {
          await this.attemptFailed(record, (error as Error).message)
        }
      })
    }
  }

  private async recovered(record: SessionRecord): Promise<void> {
    this.recovery.delete(record.id)
    runtimeReplaced(record)
    this.host.transition(record, 'running')
    this.host.touch(record)
    await this.host.save(record)
    this.options.log.info({ session: record.title }, 'lost session recovered')
  }

  private async attemptFailed(record: SessionRecord, error: string): Promise<void> {
    const attempt = this.recovery.get(record.id)
    if (!attempt) return
    attempt.failures++
    attempt.awaitingCheck = false
    this.options.log.warn({ session: record.title, attempt: attempt.failures, error }, 'recovery attempt failed')
    if (attempt.failures < RECOVERY_ATTEMPTS) {
      attempt.nextAt = Date.now() + backoffMs(this.options.config.get('lost_restore_backoff'), attempt.failures)
      return
    }
    this.recovery.delete(record.id)
    record.lost_restore_failure = { attempts: attempt.failures, error: oneLine(error) }
    this.host.transition(record, 'lost')
    this.host.touch(record)
    await this.host.save(record)
  }

  private scheduleResume(record: SessionRecord, paneText: string): void {
    const { config, clock } = this.options
    if (!config.get('limit_auto_resume')) return
    const now = clock.now()
    const reset = parseResetTime(paneText, now)
    const wait = reset ? reset.getTime() - now.getTime() + 2 * 60_000 : config.get('limit_retry_interval')
    this.resumeAt.set(record.id, Date.now() + wait)
  }

  private async resumeDue(): Promise<void> {
    for (const [id, at] of this.resumeAt) {
      if (Date.now() < at || this.host.inFlight(id) || !this.host.get(id)) continue
      await this.host.resumeFromLimit(id).catch((error: Error) =>
        this.options.log.warn({ err: error, session: id }, 'automatic resume failed'),
      )
    }
  }

  private async deliverDeferred(sightings: Map<string, Sighting>): Promise<void> {
    for (const record of this.host.records()) {
      if (!record.pending_prompts?.length || this.host.inFlight(record.id) || !isLive(record) || this.host.leased(record.id)) continue
      const sighting = sightings.get(nameOf(record))
      if (sighting?.kind !== 'alive' || sighting.attached) continue
      await this.host.exclusive(record.id, async () => {
        while (record.pending_prompts?.length) {
          await this.host.deliverInto(record, record.pending_prompts[0] as string)
          record.pending_prompts.shift()
        }
        delete record.pending_prompts
        await this.host.save(record)
      })
    }
  }
}
