import { randomBytes } from 'node:crypto'
import { DaemonError, quote } from '@svc/protocol'
import { commandLineOf } from '../agents/agent.js'
import type { Settings } from '../config/keys.js'
import { InvalidRequest, Refused } from '../errors.js'
import { git, type Repository } from '../infra/git.js'
import type { HookIntent, HookStep } from '../sessions/reconcile.js'
import { stillLeads, stopGroup } from '../infra/process-group.js'
import { remoteNoun, setState, stateOf, type ArchivedPush, type RemotePlace, type SessionRecord, type SessionWire } from '../sessions/record.js'
import { allocateTitle } from '../sessions/titles.js'
import { currentCheckout } from '../sessions/worktree.js'
import { redact } from './endpoint.js'
import type { HookOptions } from './hook-options.js'
import { placeOf, type HookRemotes } from './hook-remotes.js'
import type { HookScripts } from './hook-scripts.js'
import type { Providers } from './provider.js'
import { mirror } from './mirror.js'
import { withoutCredentials } from './origin-url.js'
import { resumeBrief } from './resume-brief.js'
import { slugOf } from './slug.js'
import type { Req } from '../wire.js'


/** A launch that failed for a reason fit to show; the token, when there was one, to redact. */
class LaunchFailed extends Error {
  constructor(
    reason: string,
    readonly token?: string,
  ) {
    super(reason)
  }
}

/** What a hook create needs that the lifecycle already worked out. */
export interface HookCreate {
  request: Req<'CreateSessionRequest'>
  repo: Repository
  settings: Settings
  program: string
  /** `hook` (the repository's launch_cmd or provision_cmd), `docker` (a container of docker.image) or `ssh` (a host of ssh_hosts). */
  backend: 'hook' | 'docker' | 'ssh'
}

/** The journaled intent of a hook record's create or restore, before its script runs. */
function hookIntent(record: SessionRecord, restore?: HookStep['restore']): HookIntent {
  const { slug, via } = placeOf(record)
  return { id: record.id, title: record.title, repo_path: record.repo_path, hook: { slug, via, branch: record.branch, ...(restore ? { restore } : {}) } }
}

/** A failed launch (of a create, or of a restore) as a refusal saying what delete_cmd did, the token redacted; any other error as it is. */
function launchRefusal(intent: HookIntent, error: unknown, undoFailure: string | undefined, what: 'start' | 'restore' = 'start'): unknown {
  if (!(error instanceof LaunchFailed)) return error
  // A docker or ssh session's place is svc's alone: no delete_cmd ran.
  const own = intent.hook.via === 'docker' || intent.hook.via === 'ssh' ? intent.hook.via : undefined
  const cleanup = undoFailure ? `; then ${undoFailure}` : own === 'ssh' ? '; nothing was left on the host' : own ? '; nothing of it is left' : `; delete_cmd --name ${intent.hook.slug} ran`
  return new Refused(redact(`could not ${what} ${remoteNoun(intent.hook)} ${quote(intent.title)}: ${error.message}${cleanup}`, error.token))
}

/** Which provider starts a session of the backend (backendOf checked the host is known). */
function placeFor(backend: HookCreate['backend'], request: Req<'CreateSessionRequest'>, settings: Settings): Pick<RemotePlace, 'via' | 'ssh_host'> {
  if (backend === 'ssh') return { via: 'ssh', ssh_host: request.host || settings['ssh.host'] }
  if (backend === 'docker') return { via: 'docker' }
  return { via: settings['remote_hooks.provision_cmd'].trim() ? 'provision' : 'launch' }
}

/** The origin URL hook sessions clone, as the home repository has it, without credentials. */
async function originOf(root: string, env: NodeJS.ProcessEnv): Promise<string> {
  const url = await git(root, ['remote', 'get-url', 'origin'], env).catch((error: Error) => {
    throw new Refused(`hook sessions clone the repository's origin remote, and ${root} has none usable (${error.message})`)
  })
  return withoutCredentials(url.trim())
}

/** What a launch needs besides the record: where to clone from, the agent's command line and first prompt. */
interface LaunchPlan {
  origin: string
  /** The session's own branch, `branch_prefix` + title as a local session's. */
  branch: string
  /** What a new session's branch is made from on the remote: the home checkout's current branch. */
  base?: string
  commandLine: string
  prompt: string | undefined
  settings: Settings
  /** A restore: launch_cmd gets `--restore`, the branch is the one pushed at archive. */
  restore?: boolean
  /** Its journaled intent, kept up to date as the launch goes (the script's group, the host). */
  intent: HookIntent
}

/**
 * The agent servers hook sessions run on: started for a create or a restore through the
 * repository's launch_cmd (or provision_cmd and ssh), the session created there; a
 * failed or interrupted start undone through delete_cmd (teardown.ts tears down the rest).
 */
export class HookServers {
  constructor(
    private readonly options: HookOptions,
    private readonly remotes: HookRemotes,
    private readonly scripts: HookScripts,
    private readonly providers: Providers,
  ) {}

  /**
   * CreateSession with `backend: "hook"`: launch_cmd starts an agent server for the slug
   * and prints its endpoint, or provision_cmd makes a host that svc starts one on over
   * ssh; the session is created there in place with the program's resolved command line
   * and the prompt. Any failure runs delete_cmd and leaves nothing behind: no record, no
   * token file, no ssh directory or master.
   */
  async create({ request, repo, settings, program, backend }: HookCreate): Promise<SessionRecord> {
    const { table } = this.options
    if (request.account) throw new InvalidRequest('accounts are not supported for hook sessions yet; leave account empty')
    const env = this.options.hookEnv()
    const origin = await originOf(repo.root, env)
    const { branch: base } = await currentCheckout(repo.root, env)
    const commandLine = commandLineOf(program, settings.program_overrides)
    const record = await table.repos.run(repo.id, async () => {
      const title = allocateTitle(request, new Set(table.ofRepository(repo.id).map((existing) => existing.title)))
      const slug = slugOf(title)
      const holder = [...table.records.values()].find((existing) => existing.remote?.slug === slug)
      if (holder) throw new Refused(`the slug ${quote(slug)} of title ${quote(title)} is used by ${remoteNoun(holder.remote)} ${quote(holder.title)}; choose another title`)
      const now = table.now.toISOString()
      const reserved: SessionRecord = {
        id: randomBytes(8).toString('hex'),
        title,
        repo_id: repo.id,
        repo_path: repo.root,
        path: '',
        // Its own branch, never the checkout's: an archive pushes it, so two sessions never race for one.
        branch: `${this.options.config.get('branch_prefix')}${title}`,
        branch_created: false,
        program,
        account: '',
        backend,
        in_place: false,
        created_at: now,
        updated_at: now,
        status: 0,
        tabs: [],
        remote: { endpoint: '', remote_id: '', slug, ...placeFor(backend, request, settings) },
        // A restore's brief names it: the new agent has no other trace of the goal.
        ...(request.prompt ? { first_prompt: request.prompt } : {}),
      }
      setState(reserved, 'loading')
      // Before launch_cmd runs: a daemon that dies from here on runs delete_cmd at its next start.
      await this.options.creations.begin(hookIntent(reserved))
      // Shown as loading meanwhile; its title and slug are taken.
      table.records.set(reserved.id, reserved)
      table.creating.add(reserved.id)
      return reserved
    })
    const intent = hookIntent(record)
    // In the session's queue: a kill (or any operation) asked meanwhile waits for the create to end.
    return table.ops.run(record.id, async () => {
      try {
        await this.launch(record, { origin, branch: record.branch, base, commandLine, prompt: request.prompt, settings, intent })
      } catch (error) {
        table.forget(record.id)
        this.remotes.drop(record.id)
        await this.releaseFailedStart(record, intent)
        throw await this.launchUndone(intent, error)
      } finally {
        table.created(record.id)
      }
      await this.options.creations.end(record.id)
      return record
    })
  }

  /**
   * Undoes what a hook create's or restore's script may have started (here, or in a
   * daemon that died): the script's process group stopped first, so that nothing it is
   * still making outlives the undo; the host it reached released (svc's agent server,
   * master and ssh directory); delete_cmd --name <slug> (as the repository's config names
   * it now: refused while it is not trusted); the token file; a restore's record archived
   * again. What went wrong with delete_cmd, or undefined.
   */
  async undoLaunch(intent: HookIntent): Promise<string | undefined> {
    const { script, slug, restore, via } = intent.hook
    if (script && (await stillLeads(script))) await stopGroup(script.pgid)
    for (const provider of Object.values(this.providers)) await provider.undo?.(intent)
    // An ssh session's host is not the repository's: its delete_cmd has nothing to do with it (nor its trust).
    const scripted = via === undefined || this.providers[via].scripted
    const failure = scripted ? await this.scripts.runDelete(await this.options.resolver.runnable(intent.repo_path), intent.repo_path, slug) : undefined
    await this.options.tokens.remove(intent.id)
    if (restore) await this.archivedAgain(intent.id, restore.archived)
    return failure
  }

  /** A restore undone: the record as its archive left it, if it is still the loading one. */
  private async archivedAgain(id: string, archived: ArchivedPush | undefined): Promise<void> {
    const { table } = this.options
    const record = table.records.get(id)
    if (!record || stateOf(record) !== 'loading') return
    const place = placeOf(record)
    place.endpoint = ''
    place.remote_id = ''
    delete place.ssh
    delete place.docker
    if (archived) place.archived = archived
    table.transition(record, 'archived')
    await table.save(record)
  }

  /**
   * A create that failed: undone, its intent spent unless delete_cmd failed (the next
   * start tries again). Answers the error to throw: a launch failure as a refusal saying
   * what delete_cmd did, the token redacted.
   */
  private async launchUndone(intent: HookIntent, error: unknown): Promise<unknown> {
    const { creations, log } = this.options
    let failure: string | undefined
    try {
      await creations.undo(intent, this.options.table.records.values(), this.options.hookEnv())
    } catch (undoError) {
      failure = (undoError as Error).message
      log.warn({ err: undoError, session: intent.title }, 'could not undo a hook session that failed to start')
    }
    return launchRefusal(intent, error, failure)
  }

  private async launch(record: SessionRecord, { origin, branch, base, commandLine, prompt, settings, restore, intent }: LaunchPlan): Promise<void> {
    const { table, tokens } = this.options
    const place = placeOf(record)
    const endpoint = await this.providers[place.via].start(record, { origin, branch, ...(base ? { base } : {}), restore: restore === true, settings, intent })
    if (typeof endpoint === 'string') throw new LaunchFailed(endpoint)
    await tokens.write(record.id, endpoint.token)
    place.endpoint = endpoint.url
    this.remotes.connect(record, endpoint)
    let row: SessionWire
    try {
      const health = await this.remotes.call(record, 'Health')
      const workspace = health.agent_server?.workspace
      if (!workspace) throw new LaunchFailed(`${endpoint.url} is not an svc agent server (its Health names no agent_server.workspace)`, endpoint.token)
      row = (await this.remotes.call(record, 'CreateSession', { title: record.title, repo_path: workspace, program: commandLine, in_place: true, ...(prompt ? { prompt } : {}) })).instance
    } catch (error) {
      if (error instanceof LaunchFailed) throw error
      const what = error instanceof DaemonError ? 'the remote agent server refused the session' : 'the remote agent server did not answer'
      throw new LaunchFailed(`${what}: ${(error as Error).message}`, endpoint.token)
    }
    place.remote_id = row.id
    mirror(record, row)
    if (!restore) record.base_sha = row.worktree.base_sha
    await table.save(record, true, restore)
    this.remotes.adopt(record, endpoint.token)
    this.options.log.info({ session: record.title, host: this.remotes.hostOf(record), slug: place.slug, via: place.via }, restore ? 'hook session restored' : 'hook session created')
  }

  /**
   * A new remote for an archived session: launch_cmd with `--restore` at the session's
   * branch, the session created there in place with a brief that says it resumes. One
   * whose remote pushed nothing (it was lost) starts its branch afresh, from origin's copy
   * of it when there is one, else from the home checkout's branch. A failed launch leaves
   * it archived (delete_cmd run, as a failed create does).
   */
  async relaunch(record: SessionRecord): Promise<void> {
    const { table, resolver } = this.options
    const settings = await resolver.runnable(record.repo_path)
    const env = this.options.hookEnv()
    const origin = await originOf(record.repo_path, env)
    const { branch: base } = await currentCheckout(record.repo_path, env)
    const place = placeOf(record)
    const pushed = place.archived
    const prompt = resumeBrief({ branch: record.branch, pushed, goal: record.first_prompt })
    // Before the record says loading: a daemon that dies from here on archives it again at its next start.
    const intent = hookIntent(record, pushed ? { archived: pushed } : {})
    await this.options.creations.begin(intent)
    delete place.archived
    table.transition(record, 'loading')
    await table.save(record)
    try {
      const commandLine = commandLineOf(record.program, settings.program_overrides)
      await this.launch(record, { origin, branch: record.branch, base, commandLine, prompt, settings, restore: pushed !== undefined, intent })
    } catch (error) {
      this.remotes.drop(record.id)
      await this.releaseFailedStart(record, intent)
      const failure = await this.undoLaunch(intent).catch((undoError: Error) => undoError.message)
      await this.archivedAgain(record.id, pushed)
      await this.options.creations.end(record.id)
      throw launchRefusal(intent, error, failure, 'restore')
    }
    await this.options.creations.end(record.id)
  }

  /** A start that failed after its host was reached: released, what the agent began there pushed first when it can be; its intent no longer names the host. */
  private async releaseFailedStart(record: SessionRecord, intent: HookIntent): Promise<void> {
    const released = await this.providers[placeOf(record).via].stop(record, { discard: false, force: true })
    if ('kept' in released) this.options.log.warn({ session: record.title, why: released.kept }, 'a failed start left its workspace on the host')
    delete intent.hook.ssh
    delete intent.hook.docker
  }
}
