import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import { profileNamed } from '../agents/profiles.js'
import { readScreen, screenLines, type Gate, type Profile, type Reading } from '../agents/profile.js'
import type { AgentGatePolicy } from '../config/keys.js'
import type { Tmux } from '../infra/tmux.js'
import { waitForFirstDraw } from './delivery.js'
import type { SessionRecord } from './record.js'
import { agentTab } from './runtime.js'

/** A gate still on screen after this many answers is the user's. */
export const GATE_ANSWERS = 3
/** An answer needs a moment to land before the gate can be judged still there. */
const ANSWER_LANDS_MS = 1_500
/** Agents drop keys that come too soon after a dialog is drawn, or after another key (Claude Code: 150 ms). */
const KEY_GAP_MS = 300
/** Moves of the cursor an answer may take to reach the accepting option. */
const MOST_MOVES = 6
/** How long a prompt waits for its agent's composer. */
const COMPOSER_WAIT_MS = 60_000

/** The composer wait, shortened by SVC_COMPOSER_WAIT_MS for tests. */
export function composerWaitMs(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.SVC_COMPOSER_WAIT_MS)
  return Number.isInteger(ms) && ms > 0 ? ms : COMPOSER_WAIT_MS
}
const LOOK_EVERY_MS = 100

/** An agent's pane: a session's, or the config assistant's. */
export type AgentPane = Pick<SessionRecord, 'id' | 'title' | 'profile' | 'agent_asks' | 'tabs'>

const nameOf = (pane: AgentPane) => agentTab(pane).tmux_name as string

/**
 * Reads known agents' screens (agents/profiles.ts) and deals with their start-up gates:
 * under `agent_gates` accept it answers a gate when it shows, at most three times, and
 * logs it; otherwise it marks the session as asking (`agent_asks`), which the observer
 * and the row report. One place for both the poll loop and prompts waiting for a composer,
 * so a gate is never answered twice at once.
 */
export class AgentScreens<P extends AgentPane = SessionRecord> {
  private readonly answers = new Map<string, { count: number; at: number }>()
  /** Sessions whose agent's composer was seen settled since it started: later waits need only see it. */
  private readonly settled = new Set<string>()

  constructor(
    private readonly tmux: Tmux,
    private readonly log: Logger,
    /** `agent_gates` in force for the session's repository. */
    private readonly policy: (pane: P) => Promise<AgentGatePolicy>,
    private readonly composerWaitMs = COMPOSER_WAIT_MS,
  ) {}

  profileOf(pane: P): Profile | undefined {
    return pane.profile === undefined ? undefined : profileNamed(pane.profile)
  }

  /**
   * Reads a known agent's screen and acts on a gate; undefined for a program without a
   * profile. `agent_asks` on the pane follows what it saw: `changed` says to save it.
   */
  async look(pane: P, screen: string): Promise<{ reading: Reading; changed: boolean } | undefined> {
    const profile = this.profileOf(pane)
    if (!profile) return undefined
    const reading = readScreen(profile, screen)
    const asks = reading.gate && !(await this.answer(pane, reading.gate)) ? reading.gate.name : undefined
    const changed = asks !== pane.agent_asks
    if (asks === undefined) delete pane.agent_asks
    else pane.agent_asks = asks
    return { reading, changed }
  }

  /** Answers a gate under accept; false when it is left to the user. */
  private async answer(pane: P, gate: Gate): Promise<boolean> {
    if ((await this.policy(pane)) === 'ask') return false
    const key = `${pane.id}\0${gate.name}`
    const answered = this.answers.get(key) ?? { count: 0, at: 0 }
    if (Date.now() - answered.at < ANSWER_LANDS_MS) return true
    if (answered.count >= GATE_ANSWERS) {
      if (pane.agent_asks !== gate.name) {
        this.log.warn({ session: pane.title, gate: gate.name }, `start-up gate still shows after ${GATE_ANSWERS} answers; left to the user`)
      }
      return false
    }
    await this.choose(nameOf(pane), gate)
    this.answers.set(key, { count: answered.count + 1, at: Date.now() })
    this.log.info({ session: pane.title, gate: gate.name, answer: answered.count + 1 }, 'answered a start-up gate')
    return true
  }

  /**
   * Moves the dialog's cursor to its accepting option, a key at a time and looking after
   * each, then presses Enter: never a blind key sequence into a dialog that may have moved.
   */
  private async choose(name: string, gate: Gate): Promise<void> {
    for (let moves = 0; moves <= MOST_MOVES; moves++) {
      await sleep(KEY_GAP_MS)
      const screen = (await this.tmux.capture([name])).get(name)
      if (screen === undefined) return
      // The live dialog is the last thing drawn: what is above it may be older.
      const lines = screenLines(screen)
      const selected = lines.findLastIndex((line) => gate.cursor.test(line))
      const target = lines.findLastIndex((line) => gate.accept.test(line))
      if (selected < 0 || target < 0) return
      if (selected === target) {
        await this.tmux.sendKeys(name, 'Enter')
        return
      }
      await this.tmux.sendKeys(name, target > selected ? 'Down' : 'Up')
    }
  }

  /** Its agent was replaced: a new process asks afresh. */
  forget(pane: P): void {
    for (const key of this.answers.keys()) if (key.startsWith(`${pane.id}\0`)) this.answers.delete(key)
    this.settled.delete(pane.id)
  }

  /**
   * Waits until the agent's composer takes input (answering gates meanwhile under
   * accept); a fresh agent's composer must first have stayed still for its profile's
   * `composerSettlesMs`. Resolves to why not when it did not within `timeoutMs`; a program without
   * a profile only needs to have drawn something. `changed` hears of `agent_asks` moving.
   */
  async composer(pane: P, changed: () => Promise<void>, timeoutMs = this.composerWaitMs): Promise<string | undefined> {
    const name = nameOf(pane)
    const profile = this.profileOf(pane)
    if (!profile) {
      await waitForFirstDraw(this.tmux, name)
      return undefined
    }
    const deadline = Date.now() + timeoutMs
    // The first time, the screen must stay still with the composer on it: not a first frame a dialog is about to cover.
    let still: { screen: string; since: number } | undefined
    for (;;) {
      const screen = (await this.tmux.capture([name])).get(name)
      if (screen === undefined) return "the agent's terminal is gone"
      const seen = await this.look(pane, screen)
      if (seen?.changed) await changed()
      if (seen?.reading.composer && !seen.reading.gate) {
        if (this.settled.has(pane.id)) return undefined
        if (still?.screen !== screen) still = { screen, since: Date.now() }
        if (Date.now() - still.since >= profile.composerSettlesMs) {
          this.settled.add(pane.id)
          return undefined
        }
      } else still = undefined
      if (Date.now() >= deadline) return this.notReady(pane, seen?.reading, timeoutMs)
      await sleep(LOOK_EVERY_MS)
    }
  }

  private notReady(pane: P, reading: Reading | undefined, timeoutMs: number): string {
    const seconds = timeoutMs / 1000
    if (reading?.gate) {
      return pane.agent_asks === undefined
        ? `the agent kept asking "${reading.gate.name}" for ${seconds} s`
        : `the agent asks "${reading.gate.name}", which is left to you: answer it in its terminal`
    }
    return `the agent's composer did not show within ${seconds} s`
  }
}
