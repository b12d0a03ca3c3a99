import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import { TabKind, type ServicePaths } from '@svc/protocol'
import { agentOf, commandLineOf } from '../agents/agent.js'
import type { Config } from '../config/config.js'
import { NotFound, Refused } from '../errors.js'
import { paneEnvironment } from '../infra/env.js'
import type { Tmux } from '../infra/tmux.js'
import { SerialQueue } from '../serial.js'
import { profileFor } from '../agents/profiles.js'
import { AgentScreens, type AgentPane } from '../sessions/agent-screens.js'
import { deliverPrompt } from '../sessions/delivery.js'
import { briefOf } from './brief.js'

/** The assistant's tmux sessions: `svc-config-<n>`, never a session's `svc_…` name. */
export const ASSISTANT_TMUX_PREFIX = 'svc-config-'

/** How long an assistant nobody watches lives on. */
export const ASSISTANT_IDLE_MS = 60_000

/** The longest an open waits for the brief; the brief may still land after it. */
const BRIEF_WAIT_MS = 60_000

/**
 * The config assistant (defaults.md "Config assistant"): one daemon-owned agent, the
 * default program in a bare tmux session in SERVICE_HOME (no worktree, no session
 * record), briefed with every config key. Spawns and reaps run one at a time, so two
 * opens never spawn two. It is reaped once nobody has watched it for the idle time:
 * stream subscribers count, and so does a person attached with tmux itself.
 */
export class ConfigAssistant {
  private readonly spawns = new SerialQueue()
  /** The running assistant's tmux session. */
  private name: string | undefined
  private spawned = 0
  /** Stream subscribers per assistant. */
  private readonly watchers = new Map<string, number>()
  private idle: NodeJS.Timeout | undefined
  /** Its agent's screens: a start-up gate (folder trust in SERVICE_HOME) is dealt with as a session's is. */
  private readonly screens: AgentScreens<AgentPane>

  constructor(
    private readonly paths: ServicePaths,
    private readonly config: Config,
    private readonly tmux: Tmux,
    /** The daemon's environment, which the pane gets filtered. */
    private readonly source: NodeJS.ProcessEnv,
    private readonly log: Logger,
    private readonly idleMs: number,
  ) {
    this.screens = new AgentScreens(tmux, log, async () => (config.get('agent_gates') === 'ask' ? 'ask' : 'accept'))
  }

  /** The running assistant's tmux session, or a new one once its brief is delivered. */
  open(): Promise<string> {
    return this.spawns.run(async () => {
      const running = await this.running()
      if (running !== undefined) {
        this.watch()
        return running
      }
      // One that exited may have left its dead pane: it goes before the next.
      await this.stop()
      const pane = await this.spawn()
      await this.brief(pane)
      this.watch()
      return pane.tabs[0]?.tmux_name as string
    })
  }

  /** The tmux session the assistant's stream attaches to. */
  async terminal(): Promise<string> {
    const running = await this.running()
    if (running === undefined) throw new NotFound('no config assistant is running; POST /v1/config-assistant starts one')
    return running
  }

  /** Ends the assistant, if one runs. */
  reap(): Promise<void> {
    return this.spawns.run(() => this.stop())
  }

  /** A stream subscriber of `name` joined: the assistant is watched. */
  joined(name: string): void {
    this.watchers.set(name, (this.watchers.get(name) ?? 0) + 1)
    clearTimeout(this.idle)
  }

  left(name: string): void {
    const count = (this.watchers.get(name) ?? 1) - 1
    if (count > 0) return void this.watchers.set(name, count)
    this.watchers.delete(name)
    if (name === this.name) this.watch()
  }

  /** Ends the assistants a previous daemon left: this one does not know what they were told. */
  async reapLeftovers(): Promise<void> {
    await this.tmux.killSessions((await this.tmux.sessionNames()).filter((name) => name.startsWith(ASSISTANT_TMUX_PREFIX)))
  }

  /** At daemon stop: the assistant belongs to this daemon, and goes with it. */
  close(): Promise<void> {
    return this.stop()
  }

  /** The assistant's tmux session while its agent runs (an agent that exited at once can leave a dead pane). */
  private async running(): Promise<string | undefined> {
    const name = this.name
    if (name === undefined) return undefined
    const pane = (await this.tmux.poll([])).get(name)
    return pane && !pane.dead ? name : undefined
  }

  private async spawn(): Promise<AgentPane> {
    const taken = new Set(await this.tmux.sessionNames())
    let name: string
    do name = `${ASSISTANT_TMUX_PREFIX}${++this.spawned}`
    while (taken.has(name))
    const program = this.config.get('default_program')
    const env = { ...paneEnvironment(this.source, agentOf(program), this.config.get('session_env_passthrough')), SERVICE_HOME: this.paths.home }
    const commandLine = commandLineOf(program, this.config.get('program_overrides'))
    // The session ends with the agent: an assistant that exited is not there to reuse.
    await this.tmux.newSession({ name, cwd: this.paths.home, env, command: ['/bin/sh', '-c', `exec ${commandLine}`], endsWithCommand: true })
    this.name = name
    const profile = profileFor(commandLine)?.name
    return { id: name, title: 'config assistant', ...(profile ? { profile } : {}), tabs: [{ id: name, kind: TabKind.agent, name: 'agent', tmux_name: name }] }
  }

  /** Pastes the brief the way a session's first prompt is, waiting for it at most BRIEF_WAIT_MS. */
  private async brief(pane: AgentPane): Promise<void> {
    const name = pane.tabs[0]?.tmux_name as string
    const brief = briefOf(await this.config.entries())
    const delivery = (async () => {
      const failure = await this.screens.composer(pane, async () => {})
      if (failure) {
        this.log.warn({ tmux_session: name, reason: failure }, 'the config assistant brief waits for its composer')
        return 'not-delivered' as const
      }
      return (await deliverPrompt(this.tmux, name, brief, this.screens.profileOf(pane))).status
    })()
    // Past the wait, a failure is only logged: the open has answered.
    delivery.catch((error: unknown) => this.log.warn({ err: error, tmux_session: name }, 'briefing the config assistant failed'))
    try {
      const status = await Promise.race([delivery, sleep(BRIEF_WAIT_MS, 'still on its way' as const, { ref: false })])
      if (status !== 'delivered') this.log.warn({ tmux_session: name, status }, 'the config assistant brief was not seen whole in its pane')
    } catch (error) {
      if ((await this.running()) !== undefined) throw error
      const lastWords = (await this.tmux.capture([name])).get(name)?.trim().split('\n').pop()?.slice(0, 200)
      await this.stop()
      const program = this.config.get('default_program')
      throw new Refused(`the config assistant (default_program ${program}) exited before its brief was delivered${lastWords ? `: ${lastWords}` : ''}`)
    }
  }

  /** Starts the idle clock, unless a subscriber watches the assistant. */
  private watch(): void {
    clearTimeout(this.idle)
    const name = this.name
    if (name === undefined || this.watchers.has(name)) return
    this.idle = setTimeout(() => void this.idleOut(name).catch((error: unknown) => this.log.warn({ err: error }, 'reaping the idle config assistant failed')), this.idleMs)
    this.idle.unref()
  }

  private async idleOut(name: string): Promise<void> {
    // The terminal UI attaches with tmux itself: not a stream subscriber, but a person there.
    if ((await this.tmux.poll([])).get(name)?.attached) return this.watch()
    await this.spawns.run(async () => {
      if (this.name === name && !this.watchers.has(name)) await this.stop()
    })
  }

  private async stop(): Promise<void> {
    clearTimeout(this.idle)
    const name = this.name
    this.name = undefined
    if (name !== undefined) await this.tmux.killSessions([name])
  }
}
