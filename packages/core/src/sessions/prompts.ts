import type { CheckedRequestOf, DeliveryStatus } from '@svc/protocol'
import { Refused } from '../errors.js'
import { resolveRepository } from '../infra/git.js'
import type { Tmux } from '../infra/tmux.js'
import { KeyedQueue } from '../serial.js'
import type { AgentScreens } from './agent-screens.js'
import { deliverPrompt, type Delivery } from './delivery.js'
import type { Leases } from './leases.js'
import type { Observer } from './observer.js'
import { isLive, stateOf, type SessionRecord } from './record.js'
import { agentTab } from './runtime.js'
import type { SessionRef, SessionTable } from './table.js'
import type { Req } from '../wire.js'


/** The prompt that resumes an agent after a usage limit. */
const RESUME_PROMPT = 'continue'

export function liveOrRefuse(record: SessionRecord): void {
  if (!isLive(record)) {
    const state = stateOf(record) ?? 'busy'
    const hint = state === 'archived' ? 'restore it with RestoreArchived first' : 'restore it with RestoreSession first'
    throw new Refused(`session "${record.title}" is ${state}; ${hint}`)
  }
}

/** Prompts typed into agents: sent, delivered by title (creating the session), resumed, first. */
export class Prompts {
  /** DeliverPrompt per repository and title, so two deliveries cannot both create the session. */
  private readonly deliveries = new KeyedQueue()

  constructor(
    private readonly table: SessionTable,
    private readonly tmux: Tmux,
    private readonly observer: Observer,
    private readonly leases: Leases,
    private readonly screens: AgentScreens,
    /** CreateSession, for a delivery to a title the repository does not have yet. */
    private readonly create: (request: CheckedRequestOf<'CreateSession'>) => Promise<SessionRecord>,
  ) {}

  /**
   * Types `prompt` into the agent once its composer takes input (never into a start-up
   * gate) and records the evidence; the caller holds the session. The first prompt that
   * states a `goal` (not a resume or a mission brief) is kept for handoffs.
   */
  async deliverInto(record: SessionRecord, prompt: string, { goal = true } = {}): Promise<DeliveryStatus> {
    const { status, screen, failure } = await this.typeInto(record, prompt)
    await this.observer.rebase(record, screen)
    record.last_prompt_attempt_at = this.table.now.toISOString()
    record.last_prompt_delivery_status = status
    if (failure) record.last_prompt_failure = failure
    else delete record.last_prompt_failure
    if (goal) record.first_prompt ??= prompt
    this.table.touch(record)
    await this.table.save(record)
    return status
  }

  /**
   * Waits for the composer, then types; a start-up gate that came up over the composer
   * and took the Enter is dealt with, and the prompt typed once more.
   */
  private async typeInto(record: SessionRecord, prompt: string): Promise<Delivery & { failure?: string }> {
    const name = agentTab(record).tmux_name as string
    const changed = async () => {
      this.table.touch(record)
      await this.table.save(record)
    }
    for (let attempt = 1; ; attempt++) {
      const failure = await this.screens.composer(record, changed)
      if (failure) return { status: 'not-delivered', failure }
      const delivery = await deliverPrompt(this.tmux, name, prompt, this.screens.profileOf(record))
      if (!delivery.interrupted || attempt === 2) return delivery
    }
  }

  /** A new session's first prompt, once its agent's composer shows. */
  async first(record: SessionRecord, prompt: string): Promise<void> {
    await this.table.ops.run(record.id, () => this.deliverInto(record, prompt))
  }

  send(request: CheckedRequestOf<'SendPrompt'>): Promise<Req<'SendPromptResponse'>> {
    return this.table.operate(request, async (record) => {
      liveOrRefuse(record)
      const status = await this.deliverInto(record, request.prompt)
      return { ok: true, status, ...(status === 'not-delivered' && record.last_prompt_failure ? { reason: record.last_prompt_failure } : {}) }
    })
  }

  /**
   * Delivers into the titled session, creating it (`started`) when the repository has none;
   * an existing one is delivered to by `existing`, its runtime's DeliverPrompt.
   */
  async deliverTo(
    request: CheckedRequestOf<'DeliverPrompt'>,
    existing: (ref: SessionRef) => Promise<Req<'DeliverPromptResponse'>>,
  ): Promise<Req<'DeliverPromptResponse'>> {
    const repo = await resolveRepository(request.repo_path)
    // The look-up and the create happen alone, or two deliveries would both create.
    return this.deliveries.run(`${repo.id}/${request.title}`, async () => {
      const found = this.table.inRepo(repo.id, request.title)
      if (found) return existing({ id: found.id })
      const { title, repo_path, program, prompt } = request
      const created = await this.create({ title, repo_path, program, prompt })
      return { status: 'started', ...(created.last_prompt_delivery_status ? { delivery: created.last_prompt_delivery_status } : {}) }
    })
  }

  /** DeliverPrompt into a session here: deferred while a person is at its terminal, when asked. */
  deliverExisting(ref: SessionRef, request: CheckedRequestOf<'DeliverPrompt'>): Promise<Req<'DeliverPromptResponse'>> {
    return this.table.operate(ref, async (record) => {
      liveOrRefuse(record)
      if (request.defer_while_attached && (await this.attached(record))) {
        record.pending_prompts = [...(record.pending_prompts ?? []), request.prompt]
        await this.table.save(record)
        return { status: 'sent', deferred: true }
      }
      return { status: 'sent', delivery: await this.deliverInto(record, request.prompt) }
    })
  }

  /** A person is at the terminal: a lease is live, or a terminal other than the daemon's streams is attached. */
  private async attached(record: SessionRecord): Promise<boolean> {
    if (this.leases.live(record.id)) return true
    const name = agentTab(record).tmux_name as string
    return (await this.tmux.poll([])).get(name)?.attached === true
  }

  resumeFromLimit(ref: SessionRef): Promise<void> {
    return this.table.operate(ref, (record) => this.resume(record))
  }

  /** Tells an agent parked at its usage limit to continue; the caller holds the session. */
  async resume(record: SessionRecord): Promise<void> {
    if (stateOf(record) !== 'limit-reached') throw new Refused(`session "${record.title}" is not at a usage limit`)
    this.observer.resumed(record.id)
    await this.deliverInto(record, RESUME_PROMPT, { goal: false })
    this.table.transition(record, 'running')
    await this.table.save(record)
  }
}
