import { mkdir, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import { quote } from '@svc/protocol'
import { AGENT_NAMES, agentNamed, agentOf } from '../agents/agent.js'
import { InvalidRequest, Refused } from '../errors.js'
import { removeFileDurable, writeFileDurable } from '../infra/durable.js'
import type { Tmux } from '../infra/tmux.js'
import { missionBrief, workState, type HandoffReason } from './mission.js'
import type { Observer } from './observer.js'
import { liveOrRefuse, type Prompts } from './prompts.js'
import { isLive, runtimeReplaced, stateOf, type HandoffEntry, type SessionRecord } from './record.js'
import { agentTab, type Panes } from './runtime.js'
import { lastWords } from './watch.js'
import { committed, type SessionRef, type SessionTable } from './table.js'
import type { Req } from '../wire.js'

type Identity = HandoffEntry['from']

/** How long a new agent gets to draw before the handoff goes on without it. */
const STARTUP_WAIT_MS = 10_000
/** The pane must hold still this long before the brief is pasted: agents draw a splash, then their composer. */
const QUIET_MS = 600
const LOOK_MS = 100
/** How long a new agent must outlive its first drawing to count as started. */
const SURVIVAL_MS = 300

/**
 * Written durably before the old agent is stopped, removed once the record names the new
 * one. Found at start, it is a handoff the daemon died in: the record's last ledger entry
 * tells whether it was committed (done) or not (the old agent is put back).
 */
interface HandoffIntent {
  id: string
  at: string
  from: Identity
  to: Identity
}

const describeIdentity = ({ program, account }: Identity) => (account ? `${program} (account ${account})` : program)

/**
 * HandoffSession: a session continues in place (same tmux name, worktree and branch)
 * under another agent and/or account, whose first message is a mission brief rendered
 * from the branch's real state. A brief not known to have arrived stays on the record
 * until ResumeFromLimit delivers it.
 */
export class Handoffs {
  constructor(
    private readonly table: SessionTable,
    private readonly panes: Panes,
    private readonly observer: Observer,
    private readonly prompts: Prompts,
    private readonly tmux: Tmux,
    private readonly options: { dir: string; log: Logger },
  ) {}

  handoff(request: Req<'HandoffSessionRequest'>): Promise<Req<'HandoffSessionResponse'>> {
    if (request.to !== undefined && !agentNamed(request.to)) {
      throw new InvalidRequest(`unknown agent ${quote(request.to)} in to; one of ${AGENT_NAMES.join(', ')}`)
    }
    return this.table.operate(request, async (record) => {
      // Any live state will do: a running agent is stopped mid-work, its worktree kept as it is.
      liveOrRefuse(record)
      const to = this.successor(record, request)
      const from = { program: record.program, account: record.account }
      if (to.account) this.panes.accountHome(to.program, to.account)
      // Refused while the outgoing agent still runs.
      await this.panes.agentCommand({ repo_path: record.repo_path, program: to.program })
      const state = stateOf(record)
      const reason: HandoffReason = state === 'limit-reached' ? 'usage-limit' : 'handed-over'
      const work = await workState(record.path, record.base_sha, this.panes.subprocessEnv())
      const intent: HandoffIntent = { id: record.id, at: this.table.now.toISOString(), from, to }
      await this.begin(intent)
      await this.replaceAgent(record, intent)

      record.program = to.program
      record.account = to.account
      const tab = agentTab(record)
      tab.handoffs = [...(tab.handoffs ?? []), { from, to, at: intent.at, head_sha: work.head_sha, reason }]
      const goal = request.brief || record.first_prompt
      const text = missionBrief({
        from: describeIdentity(from),
        to: describeIdentity(to),
        reason,
        interrupted: state === 'running',
        goal,
        branch: record.branch,
        path: record.path,
        work,
      })
      record.mission = { text }
      runtimeReplaced(record)
      this.table.transition(record, 'running')
      this.table.touch(record)
      await this.table.save(record)
      await this.end(intent.id)
      try {
        await this.deliverMission(record, true)
      } catch (error) {
        throw committed(`session "${record.title}" was handed to ${describeIdentity(to)} (its brief is pending; ResumeFromLimit retries it)`, error)
      }
      return { ok: true, from, to, head_sha: work.head_sha }
    })
  }

  /** Who runs the session next; refuses a handoff that changes nothing. */
  private successor(record: SessionRecord, request: Req<'HandoffSessionRequest'>): Identity {
    const current = agentOf(record.program)?.name
    if (request.to === undefined && request.account === undefined) throw new InvalidRequest('name the agent (to), the account, or both')
    const program = request.to ?? record.program
    const sameAgent = request.to === undefined || request.to === current
    // An account belongs to one agent: moving to another agent leaves it behind.
    const account = request.account ?? (sameAgent ? record.account : '')
    if (sameAgent && account === record.account) {
      throw new Refused(`session "${record.title}" already runs ${describeIdentity({ program: record.program, account })}; name another agent or account`)
    }
    return { program, account }
  }

  /**
   * Stops the old agent and starts the new one under the same tmux name. A new agent that
   * dies at start is refused and the old one is put back, so the session never ends up
   * with neither.
   */
  private async replaceAgent(record: SessionRecord, intent: HandoffIntent): Promise<void> {
    const name = agentTab(record).tmux_name as string
    await this.tmux.killSessions([name])
    this.observer.forget(record)
    const successor = { ...record, ...intent.to }
    await this.panes.spawnAgent(successor)
    // The new agent's screens are read with its own profile from now on.
    if (successor.profile) record.profile = successor.profile
    else delete record.profile
    const started = await this.startup(name)
    if (started === 'dead') {
      const words = lastWords((await this.tmux.capture([name])).get(name) ?? '')
      await this.tmux.killSessions([name])
      await this.panes.spawnAgent(record)
      await this.end(intent.id)
      throw new Refused(
        `${intent.to.program} exited as it started${words ? ` (${words})` : ''}; the session goes on under ${describeIdentity(intent.from)}`,
      )
    }
  }

  /**
   * Waits for the new agent's first drawing, and for it to survive a moment after: an
   * agent that cannot start prints its complaint, then exits.
   */
  private async startup(name: string): Promise<'drawn' | 'dead' | 'silent'> {
    const deadline = Date.now() + STARTUP_WAIT_MS
    let drawnAt: number | undefined
    while (Date.now() < deadline) {
      if ((await this.tmux.poll([])).get(name)?.dead !== false) return 'dead'
      if (drawnAt !== undefined && Date.now() - drawnAt >= SURVIVAL_MS) return 'drawn'
      if (drawnAt === undefined && (await this.tmux.capture([name])).get(name)?.trim()) drawnAt = Date.now()
      await sleep(LOOK_MS)
    }
    return 'silent'
  }

  /** Waits until the pane holds still (or the startup wait is over). */
  private async quiet(name: string): Promise<void> {
    const deadline = Date.now() + STARTUP_WAIT_MS
    let last: string | undefined
    let since = Date.now()
    while (Date.now() < deadline) {
      const now = (await this.tmux.capture([name])).get(name)
      if (now !== last) [last, since] = [now, Date.now()]
      else if (Date.now() - since >= QUIET_MS) return
      await sleep(LOOK_MS)
    }
  }

  /**
   * Pastes the mission brief; the caller holds the session. The attempt is saved before
   * the paste, so a daemon that dies during it leaves the brief for ResumeFromLimit rather
   * than pasting it twice.
   */
  private async deliverMission(record: SessionRecord, fresh: boolean): Promise<void> {
    const mission = record.mission
    if (!mission) return
    if (fresh) await this.quiet(agentTab(record).tmux_name as string)
    mission.attempted_at = this.table.now.toISOString()
    await this.table.save(record)
    const status = await this.prompts.deliverInto(record, mission.text, { goal: false })
    if (status !== 'delivered') {
      this.options.log.warn({ session: record.title, status }, 'handoff brief not confirmed; ResumeFromLimit retries it')
      return
    }
    delete record.mission
    await this.table.save(record)
  }

  /** ResumeFromLimit: a pending brief is delivered again; otherwise the usage-limit resume. */
  resume(ref: SessionRef): Promise<void> {
    return this.table.operate(ref, async (record) => {
      if (!record.mission) return this.prompts.resume(record)
      liveOrRefuse(record)
      await this.deliverMission(record, false)
    })
  }

  // ---------------------------------------------------------------- crash safety

  private file(id: string): string {
    return join(this.options.dir, `${id}.json`)
  }

  private async begin(intent: HandoffIntent): Promise<void> {
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 })
    await writeFileDurable(this.file(intent.id), `${JSON.stringify(intent)}\n`)
  }

  private async end(id: string): Promise<void> {
    await removeFileDurable(this.file(id))
  }

  /**
   * At start, before sessions are re-attached: a handoff whose record names the new agent
   * is complete; any other is reverted (the old agent restarted under the same tmux name).
   */
  async reconcile(records: ReadonlyMap<string, SessionRecord>): Promise<void> {
    const files = await readdir(this.options.dir).catch(() => [])
    for (const name of files.filter((file) => file.endsWith('.json'))) {
      const intent = JSON.parse(await readFile(join(this.options.dir, name), 'utf8').catch(() => 'null')) as HandoffIntent | null
      const record = intent ? records.get(intent.id) : undefined
      if (intent && record && agentTab(record).handoffs?.at(-1)?.at !== intent.at && isLive(record)) {
        await this.tmux.killSessions([agentTab(record).tmux_name as string])
        await this.panes.spawnAgent(record)
        runtimeReplaced(record)
        this.table.transition(record, 'running')
        await this.table.save(record)
        this.options.log.warn({ session: record.title, from: intent.from, to: intent.to }, 'reverted a handoff the daemon died in')
      }
      await removeFileDurable(join(this.options.dir, name))
    }
  }

  /** After start: briefs whose handoff committed but whose paste never began are delivered now. */
  deliverInterrupted(): void {
    for (const record of this.table.records.values()) {
      if (!record.mission || record.mission.attempted_at || !isLive(record)) continue
      void this.table.ops
        .run(record.id, () => this.deliverMission(record, true))
        .catch((error: Error) => this.options.log.warn({ err: error, session: record.title }, 'could not deliver a handoff brief after restart'))
    }
  }
}
