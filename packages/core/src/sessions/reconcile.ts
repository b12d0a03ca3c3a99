import { existsSync } from 'node:fs'
import { mkdir, unlink } from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { Logger } from 'pino'
import { readJsonFiles, writeFileDurable, type JsonFiles } from '../infra/durable.js'
import type { Tmux } from '../infra/tmux.js'
import type { LedGroup } from '../infra/process-group.js'
import { stateOf, type ArchivedPush, type SessionRecord, type SshPlace, type DockerPlace, type RemotePlace } from './record.js'
import { deleteBranch, removeWorktree } from './worktree.js'

/**
 * What a CreateSession is about to make, written durably before the first of it exists
 * and removed once the session's record is committed. An intent left without a record
 * is a creation the daemon died in (or could not roll back): its pieces are the
 * daemon's own, and undoing them lets the same CreateSession simply be retried.
 */
export interface CreationIntent {
  id: string
  title: string
  repo_path: string
  /** A local session's agent tab; absent for a hook session. */
  tmux_name?: string
  /** A hook session's create or restore: launch_cmd (or provision_cmd) is about to run for this slug. */
  hook?: HookStep
  /** Absent for an in-place session, which makes no worktree. */
  worktree?: {
    path: string
    branch: string
    /** False when the branch existed before: then it is the user's, never deleted. */
    branch_created: boolean
  }
}

/**
 * What undoing a hook create or restore needs, kept up to date as it goes: the script's
 * process group (stopped first, so nothing it still makes outlives the undo), the host
 * provision_cmd made (svc's agent server, master and ssh directory there are released),
 * then delete_cmd --name <slug> and the token.
 */
export interface HookStep {
  slug: string
  /** The session's provider (absent in older journals: launch_cmd's or provision_cmd's, which delete_cmd undoes). */
  via?: RemotePlace['via']
  /** The session's branch: work on the host is pushed there before its workspace goes. */
  branch: string
  /** launch_cmd or provision_cmd while it runs. */
  script?: LedGroup
  /** The host provision_cmd printed, once svc reaches it. */
  ssh?: SshPlace
  /** A docker session's container, named before `docker run`: removed (its work pushed first) by the undo. */
  docker?: DockerPlace
  /** A restore's: the record stays and, undone, is archived again with what its archive pushed. */
  restore?: { archived?: ArchivedPush }
  /** A teardown's (kill, archive, a restore's old remote), its push made: finished, never undone. */
  teardown?: { end: 'archived' | 'removed' | 'replaced'; pushed?: ArchivedPush; discard: boolean; force_reap: boolean }
}

/** The pieces committed records use: an intent never undoes one of them. */
interface InUse {
  tmuxNames: Set<string>
  paths: Set<string>
  branches: Set<string>
}

function inUse(records: Iterable<SessionRecord>): InUse {
  const used: InUse = { tmuxNames: new Set(), paths: new Set(), branches: new Set() }
  for (const record of records) {
    for (const tab of record.tabs) if (tab.tmux_name) used.tmuxNames.add(tab.tmux_name)
    used.paths.add(record.path)
    if (record.archived_path) used.paths.add(record.archived_path)
    used.branches.add(`${record.repo_path}\0${record.branch}`)
  }
  return used
}

export type HookIntent = CreationIntent & { hook: HookStep }

/** Undoes what a hook create or restore may have started, or finishes a teardown; what went wrong, or undefined when it is settled. */
export type HookUndo = (intent: HookIntent) => Promise<string | undefined>

/** The intents under `dir` as they are on disk, changing nothing (the journal's start, `svc doctor`). */
export function readCreationIntents(dir: string): Promise<JsonFiles<CreationIntent>> {
  return readJsonFiles<CreationIntent>(dir)
}

/** `creating/<id>.json` under SERVICE_HOME: one intent per CreateSession (or hook restore) in flight. */
export class CreationJournal {
  constructor(
    private readonly dir: string,
    private readonly tmux: Tmux,
    private readonly log: Logger,
    private readonly undoHook: HookUndo,
  ) {}

  private file(id: string): string {
    return join(this.dir, `${id}.json`)
  }

  async begin(intent: CreationIntent): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 })
    await writeFileDurable(this.file(intent.id), `${JSON.stringify(intent)}\n`)
  }

  /**
   * The record is committed (or everything is undone): the intent is spent. Never fails:
   * an intent left beside its record is only dropped at the next start.
   */
  async end(id: string): Promise<void> {
    await unlink(this.file(id)).catch(() => {})
  }

  /**
   * Removes what an intent made, skipping anything a committed record uses, then the
   * intent itself. Callers hold the repository's git queue (or run before any session work).
   */
  async undo(intent: CreationIntent, records: Iterable<SessionRecord>, env: NodeJS.ProcessEnv): Promise<void> {
    const used = inUse(records)
    if (intent.tmux_name && !used.tmuxNames.has(intent.tmux_name)) await this.tmux.killSessions([intent.tmux_name])
    if (intent.hook) {
      // Kept when delete_cmd fails: the remote may still run, and the next start tries again.
      const failure = await this.undoHook({ ...intent, hook: intent.hook })
      if (failure) throw new Error(failure)
    }
    const worktree = intent.worktree
    if (worktree && !used.paths.has(worktree.path) && existsSync(worktree.path)) {
      await removeWorktree(intent.repo_path, worktree.path, env)
    }
    if (worktree?.branch_created && !used.branches.has(`${intent.repo_path}\0${worktree.branch}`)) {
      await deleteBranch(intent.repo_path, worktree.branch, env)
    }
    await this.end(intent.id)
  }

  /**
   * At start, before any session work: intents whose record was committed are dropped,
   * the rest undone. One that cannot be undone now stays for the next start.
   */
  async reconcile(records: ReadonlyMap<string, SessionRecord>, env: NodeJS.ProcessEnv): Promise<void> {
    for (const intent of await this.pending()) {
      const record = records.get(intent.id)
      // A committed create, or a restore that finished: nothing to undo.
      if (record && !intent.hook?.teardown && !(intent.hook?.restore && stateOf(record) === 'loading')) {
        await this.end(intent.id)
        continue
      }
      try {
        await this.undo(intent, records.values(), env)
        this.log.warn(
          { session: intent.title, repo: intent.repo_path, worktree: intent.worktree?.path, slug: intent.hook?.slug },
          intent.hook?.teardown
            ? 'finished an interrupted teardown of a hook session'
            : intent.hook?.restore
              ? 'undid an interrupted restore of a hook session'
              : 'removed what an interrupted CreateSession left behind',
        )
      } catch (error) {
        this.log.error({ err: error, session: intent.title }, 'could not remove what an interrupted CreateSession left behind')
      }
    }
  }

  /** Ids of the intents still pending (after a start, those that could not be undone yet). */
  async pendingIds(): Promise<Set<string>> {
    return new Set((await this.pending()).map((intent) => intent.id))
  }

  private async pending(): Promise<CreationIntent[]> {
    const { values: intents, unreadable } = await readCreationIntents(this.dir)
    for (const { path, error } of unreadable) {
      // Written atomically before anything it names existed, so this one was not written by a daemon.
      this.log.error({ err: error, file: basename(path) }, 'unreadable creation intent removed')
      await unlink(path).catch(() => {})
    }
    return intents
  }
}
