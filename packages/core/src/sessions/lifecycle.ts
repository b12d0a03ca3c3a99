import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { TabKind, type CheckedRequestOf, type ServicePaths } from '@svc/protocol'
import type { Config } from '../config/config.js'
import type { ConfigResolver } from '../config/resolver.js'
import { InvalidRequest } from '../errors.js'
import { resolveRepository, type Repository } from '../infra/git.js'
import { backendOf, requestedBackend } from './catalog.js'
import type { Observer } from './observer.js'
import type { Prompts } from './prompts.js'
import { isLive, runtimeReplaced, setState, stateOf, type SessionRecord } from './record.js'
import { agentTab, agentTmuxName, type Panes } from './runtime.js'
import { committed, type SessionRef, type SessionTable } from './table.js'
import { tabId } from './tabs.js'
import { allocateTitle, ROOT_TITLE } from './titles.js'
import { archiveAlone, refuseOtherBoot, refuseRestoring, refuseUnarchived } from './lifecycle-guards.js'
import type { CreationIntent, CreationJournal } from './reconcile.js'
import type { Handoffs } from './handoff.js'
import type { HookRuntime } from '../remote/hook-runtime.js'
import { addWorktree, currentCheckout, deleteBranch, freePath, moveWorktree, planWorktree, removeWorktree, worktreeHome, type WorktreePlan } from './worktree.js'
import type { Req } from '../wire.js'


export interface LifecycleOptions {
  paths: ServicePaths
  config: Config
  resolver: ConfigResolver
  log: Logger
  bootId: string
  /** Ids of enabled tasks that target the session. */
  targetedBy(record: SessionRecord): string[]
  /** Told of each repository a session is created in. */
  repository(repo: Repository): Promise<void>
  /** CreateSession's intents, so a creation the daemon died in is undone at the next start. */
  creations: CreationJournal
  /** Handoffs the daemon died in: completed or reverted before sessions are re-attached. */
  handoffs: Pick<Handoffs, 'reconcile'>
  /** Creates the sessions whose backend is `hook` or `docker`. */
  hook: Pick<HookRuntime, 'create' | 'engineDown'>
}

/**
 * Sessions coming and going: restored at start, created, killed, archived and restored,
 * their runtime respawned. Each operation holds its session alone.
 */
export class Lifecycle {
  constructor(
    private readonly table: SessionTable,
    private readonly panes: Panes,
    private readonly observer: Observer,
    private readonly prompts: Prompts,
    private readonly options: LifecycleOptions,
  ) {}

  /**
   * Warm-up: sessions whose tmux session survived are re-attached untouched; live ones
   * whose tmux session is gone are respawned; archived ones stay inert.
   */
  async restore(records: SessionRecord[], alive: ReadonlySet<string>): Promise<void> {
    const { table } = this
    for (const record of records) table.records.set(record.id, record)
    await this.options.creations.reconcile(table.records, this.panes.subprocessEnv())
    await this.options.handoffs.reconcile(table.records)
    for (const record of records) {
      const state = stateOf(record)
      if (state === 'deleting') {
        // A kill or archive was interrupted: the runtime may be half gone.
        table.transition(record, 'dead')
        await table.save(record)
      } else if (state === 'lost' && !record.lost_restore_failure) {
        this.observer.lost(record)
      } else if (isLive(record) || state === 'loading') {
        await this.reattach(record, alive)
      }
    }
    this.options.log.info({ sessions: table.records.size }, 'sessions restored')
  }

  private async reattach(record: SessionRecord, alive: ReadonlySet<string>): Promise<void> {
    const { table } = this
    try {
      if (!alive.has(agentTab(record).tmux_name as string)) {
        await this.panes.spawnAll(record)
        runtimeReplaced(record)
        table.transition(record, 'running')
        await table.save(record)
        return
      }
      const missing = record.tabs.slice(1).filter((tab) => tab.tmux_name && !alive.has(tab.tmux_name))
      for (const tab of missing) await this.panes.spawnTab(record, tab)
      const wasLoading = stateOf(record) === 'loading'
      if (wasLoading) table.transition(record, 'running')
      if (wasLoading || missing.length > 0) await table.save(record)
    } catch (error) {
      this.options.log.error({ err: error, session: record.title }, 'could not respawn session at start')
      table.transition(record, 'lost')
      await table.save(record)
      this.observer.lost(record)
    }
  }

  /** `root` creates a project's root session, the one session that may be titled so. */
  async create(request: CheckedRequestOf<'CreateSession'>, { root = false } = {}): Promise<SessionRecord> {
    if (request.title === ROOT_TITLE && !root) {
      throw new InvalidRequest(`the title "${ROOT_TITLE}" is reserved for root agent sessions (config root_agents)`)
    }
    const { table, panes, options } = this
    const repo = await resolveRepository(request.repo_path)
    // Before anything is made: a repository config that is malformed, or names commands not trusted, refuses the create.
    const settings = await options.resolver.runnable(repo.root)
    // The Docker Engine is asked only for a docker create.
    const engineDown = requestedBackend(request, settings) === 'docker' ? await options.hook.engineDown() : undefined
    const backend = backendOf(request, { settings }, engineDown)
    const program = (request.program ?? '').trim() || settings.default_program
    const account = request.account ?? ''
    if (backend === 'hook' || backend === 'docker' || backend === 'ssh') {
      await options.repository(repo)
      return options.hook.create({ request, repo, settings, program, backend })
    }
    if (account) panes.accountHome(program, account)
    await options.repository(repo)
    const record = await table.repos.run(repo.id, async () => {
      const taken = new Set([...table.ofRepository(repo.id).map((existing) => existing.title), ...(root ? [] : [ROOT_TITLE])])
      const title = allocateTitle(request, taken)
      const env = panes.subprocessEnv()
      const now = table.now.toISOString()
      const id = randomBytes(8).toString('hex')
      const tmuxName = agentTmuxName(repo.id, title)
      const worktree = request.in_place
        ? undefined
        : await planWorktree(repo.root, title, `${options.config.get('branch_prefix')}${title}`, env)
      const intent: CreationIntent = { id, title, repo_path: repo.root, tmux_name: tmuxName, ...(worktree ? { worktree } : {}) }
      await options.creations.begin(intent)
      const place: WorktreePlan = worktree ?? { path: repo.root, branch_created: false, ...(await currentCheckout(repo.root, env)) }
      const created: SessionRecord = {
        id,
        title,
        repo_id: repo.id,
        repo_path: repo.root,
        path: place.path,
        branch: place.branch,
        branch_created: place.branch_created,
        program,
        account,
        backend,
        in_place: request.in_place === true,
        ...(root ? { root } : {}),
        base_sha: place.start_sha,
        created_at: now,
        updated_at: now,
        status: 0,
        tabs: [{ id: tabId(), kind: TabKind.agent, name: 'agent', tmux_name: tmuxName }],
      }
      setState(created, 'loading')
      try {
        if (worktree) await addWorktree(repo.root, worktree, env)
        table.records.set(id, created)
        table.creating.add(id)
        await panes.spawnAgent(created)
        setState(created, 'running')
        await table.save(created)
      } catch (error) {
        table.forget(id)
        table.creating.delete(id)
        // The spawn's error is the answer; what cannot be undone now stays in the journal, for the next start.
        await options.creations.undo(intent, table.records.values(), env).catch((cleanup: Error) =>
          this.options.log.warn({ err: cleanup, session: created.title }, 'could not undo a session that failed to start'),
        )
        throw error
      }
      await options.creations.end(id)
      return created
    })
    try {
      if (request.prompt) await this.prompts.first(record, request.prompt)
    } catch (error) {
      throw committed(`session "${record.title}" was created`, error)
    } finally {
      table.created(record.id)
    }
    return record
  }

  private async dropWorktree(record: SessionRecord): Promise<void> {
    const env = this.panes.subprocessEnv()
    await this.table.repos.run(record.repo_id, async () => {
      await removeWorktree(record.repo_path, record.archived_path ?? record.path, env)
      if (record.branch_created) await deleteBranch(record.repo_path, record.branch, env)
    })
  }

  /** Tears a session down completely: tmux, worktree, the branch the daemon created, the record. */
  kill(ref: SessionRef): Promise<void> {
    const { table } = this
    return table.operate(ref, async (record) => {
      table.transition(record, 'deleting')
      await this.panes.teardown(record)
      this.observer.forget(record)
      try {
        if (!record.in_place) await this.dropWorktree(record)
      } catch (error) {
        table.transition(record, 'dead')
        await table.save(record)
        throw committed(`session "${record.title}" was stopped and marked dead`, error)
      }
      await table.remove(record)
      table.emit(record.id, 'removed')
    })
  }

  /** Stops tmux, moves the worktree to archived/<repo_id>/<title>, keeps the record. */
  archive(ref: SessionRef): Promise<string> {
    const { table } = this
    return archiveAlone(table, ref, (record) => this.options.targetedBy(record), async (current) => {
      table.transition(current, 'deleting')
      await this.panes.teardown(current)
      this.observer.forget(current)
      let path = current.path
      if (!current.in_place) {
        path = await table.repos.run(current.repo_id, async () => {
          const target = freePath(join(this.options.paths.archived, current.repo_id, current.title))
          try {
            await moveWorktree(current.repo_path, current.path, target, this.panes.subprocessEnv())
          } catch (error) {
            // The runtime is already gone; the worktree stays where it was.
            table.transition(current, 'dead')
            await table.save(current)
            throw committed(`session "${current.title}" was stopped and marked dead`, error)
          }
          return target
        })
      }
      current.archived_path = path
      table.transition(current, 'archived')
      await table.save(current)
      return path
    })
  }

  /** Moves an archived worktree back next to the repository and respawns the agent. */
  restoreArchived(ref: SessionRef): Promise<string> {
    return this.table.operate(ref, async (record) => {
      refuseUnarchived(record)
      return this.unarchive(record)
    })
  }

  private async unarchive(record: SessionRecord): Promise<string> {
    // Refused before the worktree moves back.
    await this.panes.agentCommand(record)
    if (!record.in_place && record.archived_path) {
      const from = record.archived_path
      const to = await this.table.repos.run(record.repo_id, async () => {
        const destination = worktreeHome(record.repo_path, record.title)
        await moveWorktree(record.repo_path, from, destination, this.panes.subprocessEnv())
        return destination
      })
      record.path = to
    }
    delete record.archived_path
    await this.replaceRuntime(record)
    return record.path
  }

  /** Respawns agent and tabs; the old runtime's traces are cleared. */
  private async replaceRuntime(record: SessionRecord): Promise<void> {
    const { table } = this
    // Refused before the old runtime is torn down.
    await this.panes.agentCommand(record)
    await this.panes.teardown(record)
    this.observer.forget(record)
    await this.panes.spawnAll(record)
    runtimeReplaced(record)
    table.transition(record, 'running')
    table.touch(record)
    await table.save(record, true, true)
  }

  /** Restores an archived, lost or dead session (or, with force_reap, replaces a live one's runtime). */
  restoreSession(request: Req<'RestoreSessionRequest'>): Promise<void> {
    refuseOtherBoot(request.expected_daemon_boot_id, this.options.bootId)
    return this.table.operate(request, async (record) => {
      refuseRestoring(record, request.force_reap)
      recreateUnderNotice(record)
      if (stateOf(record) === 'archived') await this.unarchive(record)
      else await this.replaceRuntime(record)
    })
  }
}

/** A root session with a recreate notice comes back under root_agent; an account belongs to the agent it replaces. */
function recreateUnderNotice(record: SessionRecord): void {
  if (!record.recreate) return
  record.program = record.recreate.program
  record.account = ''
  delete record.recreate
}
