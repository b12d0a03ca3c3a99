import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { ServicePaths } from '@svc/protocol'
import { Accounts } from './accounts/accounts.js'
import { ASSISTANT_IDLE_MS, ConfigAssistant } from './assistant/assistant.js'
import type { Config } from './config/config.js'
import { ConfigResolver } from './config/resolver.js'
import { TrustedRepoConfigs } from './config/trust.js'
import { EventBus } from './events/bus.js'
import { Notifier } from './events/notifier.js'
import { sessionFeed } from './events/session-feed.js'
import { taskFeed } from './events/task-feed.js'
import type { Clock } from './infra/clock.js'
import { Projects } from './projects/projects.js'
import { sessionPort } from './sessions/port.js'
import { Sessions } from './sessions/sessions.js'
import { Tasks } from './tasks/tasks.js'

export type Phase = 'warming' | 'ready'

/**
 * The daemon's domain: it owns all mutable state, split by concern. Reads take a
 * consistent view of memory; mutations are serialized per session and per store.
 */
export class Core {
  /** Identifies this process; clients compare it to notice a restart. */
  readonly bootId = randomBytes(8).toString('hex')
  readonly sessions: Sessions
  readonly projects: Projects
  readonly tasks: Tasks
  readonly accounts: Accounts
  readonly assistant: ConfigAssistant
  /** The settings in force for a repository: its .svc/config.json over config.json. */
  readonly resolver: ConfigResolver
  /** Domain events, open once the state is restored. */
  readonly events: EventBus
  private currentPhase: Phase = 'warming'

  constructor(
    readonly paths: ServicePaths,
    readonly config: Config,
    readonly log: Logger,
    readonly clock: Clock,
    /** The daemon's environment, which sessions filter for their panes. */
    readonly env: NodeJS.ProcessEnv = process.env,
    /** How long the config assistant lives on unwatched. */
    assistantIdleMs = ASSISTANT_IDLE_MS,
  ) {
    this.events = new EventBus(log)
    this.resolver = new ConfigResolver(config, new TrustedRepoConfigs(paths.trustedRepoConfigs), clock)
    const resolver = this.resolver
    this.sessions = new Sessions({ paths, config, resolver, log, clock, bootId: this.bootId, feed: sessionFeed(this.events), env })
    this.projects = new Projects(paths, config, resolver, this.sessions, this.events)
    this.accounts = new Accounts(paths, config, resolver, this.sessions.tmux, env)
    this.assistant = new ConfigAssistant(paths, config, this.sessions.tmux, env, log, assistantIdleMs)
    this.tasks = new Tasks({ path: paths.tasks, config, log, clock, env, feed: taskFeed(this.events) })
    config.onChange((_next, _previous, key) => this.events.publish('config.changed', { key }))
    resolver.onChange((key) => this.events.publish('config.changed', { key }))
    this.events.subscribe(new Notifier(config, log, env).listener)
    // Sessions and tasks need each other: tasks drive sessions, sessions ask tasks before archiving.
    this.tasks.attach(sessionPort(this.sessions))
    this.sessions.setGuard(this.tasks)
    this.sessions.onRepository((repo) => this.projects.remember(repo))
  }

  get phase(): Phase {
    return this.currentPhase
  }

  /**
   * Brings back durable state, then opens the session and task routes. `beforeReady` runs
   * with everything restored and the phase still warming.
   */
  async restore(beforeReady: () => Promise<void> = async () => {}): Promise<void> {
    await this.assistant.reapLeftovers()
    await this.projects.restore()
    await this.sessions.restore()
    await this.sessions.startRootSessions((id) => this.projects.rootOf(id))
    this.sessions.startObserving()
    await this.tasks.restore()
    await beforeReady()
    this.events.start()
    this.currentPhase = 'ready'
  }

  /** Stops background work (timers, watchers, poll loops); state on disk is already current. */
  async close(): Promise<void> {
    // Tasks first: their watchers and runs still talk to live sessions.
    await this.tasks.close()
    await this.assistant.close()
    await this.sessions.close()
  }
}
