import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { Static } from 'typebox'
import { DaemonError, quote, TabKind, type CheckedRequestOf, type Client, type DeliveryStatus, type RequestOf, type ResponseOf, type RouteName } from '@svc/protocol'
import type * as wire from '@svc/protocol'
import { commandLineOf } from '../agents.js'
import type { Config } from '../config/config.js'
import type { ConfigResolver } from '../config/resolver.js'
import type { Settings } from '../config/keys.js'
import { committed, type SessionRef, type SessionTable } from '../sessions/table.js'
import { InvalidRequest, Refused } from '../errors.js'
import { git, type Repository } from '../infra/git.js'
import { liveOrRefuse } from '../sessions/prompts.js'
import { setState, stateOf, type ArchivedPush, type SessionRecord, type SessionWire } from '../sessions/record.js'
import { archiveAlone, refuseOtherBoot, refuseRestoring, refuseUnarchived } from '../sessions/lifecycle-guards.js'
import type { Runtime } from '../sessions/runtime.js'
import { tabKindOf } from '../sessions/tabs.js'
import { allocateTitle } from '../sessions/titles.js'
import { currentCheckout } from '../sessions/worktree.js'
import { hostOf, isUnreachable, parseEndpoint, redact, remoteClient, type Endpoint } from './endpoint.js'
import { hookArgv, runHook, type HookRun } from './hook-command.js'
import { EventRelay, type RelayedKind } from './event-relay.js'
import type { RemoteLink } from './link.js'
import { mirror } from './mirror.js'
import { resumeBrief } from './resume-brief.js'
import { slugOf } from './slug.js'
import { parseProvisionedHost, type ProvisionedHost } from './ssh-host.js'
import { SshLinks, type SshTimings } from './ssh-links.js'
import type { RemoteTokens } from './tokens.js'
import type { CreationJournal, HookIntent } from '../sessions/reconcile.js'

type Req<T extends keyof typeof wire> = Static<(typeof wire)[T]>

export interface HookOptions {
  table: SessionTable
  resolver: ConfigResolver
  /** remote_ssh_command and remote_svc_command, read at each use. */
  config: Pick<Config, 'get'>
  /** `$SERVICE_HOME/remote-ssh`: provisioned sessions' known_hosts and control sockets. */
  sshDir: string
  sshTimings: SshTimings
  tokens: RemoteTokens
  log: Logger
  /** The environment hooks run with: the daemon's, filtered as a pane's is. */
  hookEnv(): NodeJS.ProcessEnv
  /** How long launch_cmd, provision_cmd, delete_cmd and one ssh run may take. */
  timeoutMs: number
  /** CreateSession's intents: a create the daemon died in runs delete_cmd at the next start. */
  creations: Pick<CreationJournal, 'begin' | 'end' | 'undo'>
  bootId: string
  /** Ids of enabled tasks that target the session (an archive is refused while any does). */
  targetedBy(record: SessionRecord): string[]
}

/** A launch that failed for a reason fit to show; the token, when there was one, to redact. */
class LaunchFailed extends Error {
  constructor(
    reason: string,
    readonly token?: string,
  ) {
    super(reason)
  }
}

type HookKey = 'remote_hooks.launch_cmd' | 'remote_hooks.provision_cmd' | 'remote_hooks.delete_cmd'

/** What a hook create needs that the lifecycle already worked out. */
export interface HookCreate {
  request: Req<'CreateSessionRequest'>
  repo: Repository
  settings: Settings
  program: string
}

/** The remote's place of a hook record (set on every hook record). */
function placeOf(record: SessionRecord): NonNullable<SessionRecord['remote']> {
  return record.remote as NonNullable<SessionRecord['remote']>
}

/** The creation intent of a hook record: its slug, for delete_cmd. */
function hookIntent(record: SessionRecord): HookIntent {
  return { id: record.id, title: record.title, repo_path: record.repo_path, hook: { slug: placeOf(record).slug } }
}

/** A failed launch (of a create, or of a restore) as a refusal saying what delete_cmd did, the token redacted; any other error as it is. */
function launchRefusal(intent: HookIntent, error: unknown, undoFailure: string | undefined, what: 'start' | 'restore' = 'start'): unknown {
  if (!(error instanceof LaunchFailed)) return error
  const cleanup = undoFailure ? `; then ${undoFailure}` : `; delete_cmd --name ${intent.hook.slug} ran`
  return new Refused(redact(`could not ${what} hook session ${quote(intent.title)}: ${error.message}${cleanup}`, error.token))
}

/** The host a hook session runs on, as messages name it: the provisioned host, else its endpoint's. */
function hostOfPlace(place: NonNullable<SessionRecord['remote']>): string {
  return place.ssh?.host ?? hostOf(place.endpoint)
}

function notYet(what: string): Promise<never> {
  return Promise.reject(new Refused(`${what} of hook sessions is not supported yet`))
}

/** A remote's push that did not happen: said, and whether the remote answered at all. */
class PushFailed extends Error {
  constructor(
    message: string,
    readonly unreachable: boolean,
  ) {
    super(message)
  }
}

/** How long a remote's snapshot and push may take: a large first push over a slow link. */
const PUSH_TIMEOUT_MS = 10 * 60_000

/** The origin URL hook sessions clone, as the home repository has it. */
async function originOf(root: string, env: NodeJS.ProcessEnv): Promise<string> {
  const url = await git(root, ['remote', 'get-url', 'origin'], env).catch((error: Error) => {
    throw new Refused(`hook sessions clone the repository's origin remote, and ${root} has none usable (${error.message})`)
  })
  return url.trim()
}

/** What a launch needs besides the record: where to clone from, the agent's command line and first prompt. */
interface LaunchPlan {
  origin: string
  branch: string
  commandLine: string
  prompt: string | undefined
  settings: Settings
  /** A restore: launch_cmd gets `--restore`, the branch is the one pushed at archive. */
  restore?: boolean
}

/**
 * Sessions that run on a remote agent server, which the repository's launch_cmd
 * started, or which svc started over ssh on the host its provision_cmd made: created
 * there in place, driven with the protocol's client and the agent server's token, torn
 * down by delete_cmd. The home keeps the remote's row as the session's last-known state.
 */
export class HookRuntime implements Runtime {
  /** Each hook session's client and token, from its token file (read at start) or launch_cmd. */
  private readonly clients = new Map<string, { client: Client; token: string }>()
  /** The remotes' event feeds, relayed into the home's rows and feed. */
  private readonly relay: EventRelay
  /** Provisioned sessions' ssh masters and forwards, watched. */
  private readonly ssh: SshLinks

  constructor(private readonly options: HookOptions) {
    this.relay = new EventRelay({
      onSession: (homeId, row, kind) => this.relayed(homeId, row, kind),
      onReachability: (endpoint, reachable) => this.reachability(endpoint, reachable),
    })
    this.ssh = new SshLinks({
      dir: options.sshDir,
      runner: { command: () => options.config.get('remote_ssh_command'), env: () => options.hookEnv(), timeoutMs: options.timeoutMs },
      log: options.log,
      timings: options.sshTimings,
      listener: { down: (id) => this.sshDown(id), up: (id, endpoint) => this.sshUp(id, endpoint) },
    })
  }

  // ---------------------------------------------------------------- reaching the remote

  private clientOf(record: SessionRecord): { client: Client; token: string } {
    if (stateOf(record) === 'archived') throw new Refused(`hook session ${quote(record.title)} is archived; restore it with RestoreArchived first`)
    const entry = this.clients.get(record.id)
    if (!entry) throw new Refused(`the token of hook session ${quote(record.title)} is missing (${record.id} under remote-tokens); kill it with force_reap`)
    return entry
  }

  /** Takes up a hook session: its token, and its remote's events. */
  private adopt(record: SessionRecord, token: string): void {
    this.clients.set(record.id, { client: remoteClient({ url: placeOf(record).endpoint, token }), token })
    this.relay.watch(this.linkOf(record))
  }

  private drop(id: string): void {
    this.relay.unwatch(id)
    this.clients.delete(id)
  }

  /**
   * Hook sessions as saved, at start: each keeps its last-known row until its remote's
   * feed connects (the row is then read again) or fails (marked unreachable).
   */
  async restore(records: SessionRecord[]): Promise<void> {
    for (const record of records) {
      this.options.table.records.set(record.id, record)
      // An archived one has no remote until it is restored.
      if (stateOf(record) === 'archived') continue
      const token = await this.options.tokens.read(record.id)
      if (token === undefined) this.options.log.warn({ session: record.title }, 'hook session has no token file; kill it with force_reap')
      else this.adopt(record, token)
      const { ssh, slug, endpoint } = placeOf(record)
      // Its master and forward were ended with the daemon: reopened (the known_hosts file kept).
      if (ssh) this.ssh.resume(record.id, slug, ssh, endpoint)
    }
  }

  async close(): Promise<void> {
    this.relay.close()
    await this.ssh.close()
  }

  /** The link the event and stream relays reach the session by. */
  linkOf(record: SessionRecord): RemoteLink {
    const { token } = this.clientOf(record)
    const { endpoint, remote_id } = placeOf(record)
    return { homeId: record.id, remoteId: remote_id, endpoint, token }
  }

  /** A relayed change of a session: its row, or its end. An operation under way owns the record meanwhile. */
  private relayed(homeId: string, row: SessionWire | undefined, kind: RelayedKind): void {
    const record = this.options.table.records.get(homeId)
    if (!record || this.options.table.inFlight(homeId)) return
    if (row === undefined && kind !== 'snapshot' && kind !== 'session.killed') return
    void this.apply(record, row).catch((error: Error) => this.options.log.warn({ err: error, session: record.title }, 'could not apply a relayed row'))
  }

  private reachability(endpoint: string, reachable: boolean): void {
    const { table, log } = this.options
    for (const record of table.records.values()) {
      if (record.remote?.endpoint !== endpoint || !record.remote.remote_id) continue
      log.info({ session: record.title, reachable }, reachable ? 'remote answers again' : 'remote does not answer; retrying with backoff')
      // Reachable again: the feed's Snapshot read that follows brings the row back.
      if (!reachable) void this.unreachable(record).catch((error: Error) => log.warn({ err: error }, 'could not mark a remote unreachable'))
    }
  }

  /** A call to the session's remote, failures as they came (the token never in a message). */
  async call<N extends RouteName>(record: SessionRecord, name: N, body?: RequestOf<N>): Promise<ResponseOf<N>> {
    const { client, token } = this.clientOf(record)
    try {
      return await client.call(name, body)
    } catch (error) {
      ;(error as Error).message = redact((error as Error).message, token)
      throw error
    }
  }

  /** A call whose failure is the answer: said as the remote's, or as the remote not answering. */
  private async ask<N extends RouteName>(record: SessionRecord, name: N, body: RequestOf<N>): Promise<ResponseOf<N>> {
    try {
      return await this.call(record, name, body)
    } catch (error) {
      const host = hostOfPlace(placeOf(record))
      if (isUnreachable(error)) {
        throw new Refused(`the remote of hook session ${quote(record.title)} at ${host} does not answer (${(error as Error).message}); its last-known state is kept and it is retried`)
      }
      if (error instanceof DaemonError) throw new Refused(`the remote agent server at ${host} answered: ${error.message}`)
      throw error
    }
  }

  /** The remote's row of the session, or undefined when the remote has no such session. */
  async remoteRow(record: SessionRecord): Promise<SessionWire | undefined> {
    const { instances } = await this.call(record, 'Snapshot', {})
    return instances.find((row) => row.id === placeOf(record).remote_id)
  }

  /**
   * Reads the remote's row into the record and saves it when it changed: the row the
   * home shows (and its event feed announces). A session the remote no longer has is dead.
   */
  async refresh(record: SessionRecord): Promise<void> {
    await this.apply(record, await this.remoteRow(record))
  }

  /** The remote's row (none: the remote no longer has the session, which is dead) into the record, saved when it changed. */
  private async apply(record: SessionRecord, row: SessionWire | undefined): Promise<void> {
    const { table } = this.options
    const place = placeOf(record)
    const before = stateOf(record)
    let changed = place.unreachable === true
    delete place.unreachable
    if (row) changed = mirror(record, row) || changed
    else changed = setState(record, 'dead') || changed
    if (!changed || !table.records.has(record.id)) return
    table.touch(record)
    await table.save(record, false)
    // As the observer says of a local session: task runs in it complete on this.
    if (before === 'running' && stateOf(record) === 'ready') table.emit(record.id, 'settled')
  }

  /** A provisioned session's ssh master dropped: its remote is unreachable until it is reopened. */
  private sshDown(id: string): void {
    const record = this.options.table.records.get(id)
    if (record) void this.unreachable(record).catch((error: Error) => this.options.log.warn({ err: error }, 'could not mark a remote unreachable'))
  }

  /**
   * A provisioned session's master is open again and forwards `endpoint` (its local port
   * may have changed): the record, the client and the event feed use it, the feed
   * reconnecting at once rather than at its backoff's next try.
   */
  private sshUp(id: string, endpoint: string): void {
    const record = this.options.table.records.get(id)
    const token = this.clients.get(id)?.token
    if (!record || token === undefined) return
    const place = placeOf(record)
    if (place.endpoint !== endpoint) {
      place.endpoint = endpoint
      void this.options.table.save(record, false).catch((error: Error) => this.options.log.warn({ err: error }, 'could not save a moved forward'))
    }
    this.adopt(record, token)
  }

  /** The remote stopped answering: the record keeps its last-known state, marked so. */
  async unreachable(record: SessionRecord): Promise<void> {
    const place = placeOf(record)
    if (place.unreachable || !this.options.table.records.has(record.id)) return
    place.unreachable = true
    this.options.table.touch(record)
    await this.options.table.save(record, false)
  }

  // ---------------------------------------------------------------- hooks

  private async runHookCommand(settings: Settings, key: HookKey, root: string, args: string[]): Promise<HookRun> {
    const argv = [...hookArgv(settings[key], root), ...args]
    return runHook(argv, root, this.options.hookEnv(), this.options.timeoutMs)
  }

  /** Runs delete_cmd; what went wrong, or undefined when it ran cleanly. */
  private async runDelete(settings: Settings, root: string, slug: string): Promise<string | undefined> {
    const run = await this.runHookCommand(settings, 'remote_hooks.delete_cmd', root, ['--name', slug])
    if (run.code === 0) return undefined
    const why = run.timedOut ? `did not finish within ${this.options.timeoutMs / 1000} s` : `exited with ${run.code ?? 'a signal'}`
    const failure = `delete_cmd --name ${slug} ${why}${run.stderrTail ? `: ${redact(run.stderrTail)}` : ''}`
    this.options.log.warn({ slug, failure }, 'delete_cmd failed')
    return failure
  }

  /** Why a hook's run failed (a timeout, a non-zero exit), as a message fit to show; undefined when it exited 0. */
  private runFailure(run: HookRun, hook: string): string | undefined {
    const stderr = run.stderrTail ? `; its stderr ends: ${redact(run.stderrTail)}` : ''
    if (run.timedOut) return `${hook} gave no answer within ${this.options.timeoutMs / 1000} s (its process group was killed)${stderr}`
    if (run.code !== 0) return `${hook} exited with ${run.code ?? 'a signal'}${stderr}`
    return undefined
  }

  /** The endpoint launch_cmd printed, or why it is not usable. */
  private launched(run: HookRun): Endpoint | string {
    const failed = this.runFailure(run, 'launch_cmd')
    if (failed !== undefined) return failed
    try {
      return parseEndpoint(run.stdout)
    } catch (error) {
      return `launch_cmd's answer is not usable: ${(error as Error).message}${run.stderrTail ? `; its stderr ends: ${redact(run.stderrTail)}` : ''}`
    }
  }

  /**
   * The host provision_cmd printed, reached over ssh with its key pinned; the agent
   * server started there and forwarded to a local port: that forward's endpoint, or why not.
   */
  private async provisioned(record: SessionRecord, run: HookRun, start: { origin: string; branch: string; restore: boolean }): Promise<Endpoint | string> {
    const failed = this.runFailure(run, 'provision_cmd')
    if (failed !== undefined) return failed
    const place = placeOf(record)
    let host: ProvisionedHost
    try {
      host = parseProvisionedHost(run.stdout)
    } catch (error) {
      return `provision_cmd's answer is not usable: ${(error as Error).message}${run.stderrTail ? `; its stderr ends: ${redact(run.stderrTail)}` : ''}`
    }
    try {
      const svc = this.options.config.get('remote_svc_command')
      const provisioned = await this.ssh.provision(record.id, host, { slug: place.slug, repo: start.origin, branch: start.branch, restore: start.restore, svc })
      place.ssh = provisioned.place
      return provisioned.endpoint
    } catch (error) {
      return (error as Error).message
    }
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * CreateSession with `backend: "hook"`: launch_cmd starts an agent server for the slug
   * and prints its endpoint, or provision_cmd makes a host that svc starts one on over
   * ssh; the session is created there in place with the program's resolved command line
   * and the prompt. Any failure runs delete_cmd and leaves nothing behind: no record, no
   * token file, no ssh directory or master.
   */
  async create({ request, repo, settings, program }: HookCreate): Promise<SessionRecord> {
    const { table } = this.options
    if (request.account) throw new InvalidRequest('accounts are not supported for hook sessions yet; leave account empty')
    const env = this.options.hookEnv()
    const origin = await originOf(repo.root, env)
    const { branch } = await currentCheckout(repo.root, env)
    const commandLine = commandLineOf(program, settings.program_overrides)
    const record = await table.repos.run(repo.id, async () => {
      const title = allocateTitle(request, new Set(table.ofRepository(repo.id).map((existing) => existing.title)))
      const slug = slugOf(title)
      const holder = [...table.records.values()].find((existing) => existing.remote?.slug === slug)
      if (holder) throw new Refused(`the slug ${quote(slug)} of title ${quote(title)} is used by hook session ${quote(holder.title)}; choose another title`)
      const now = table.now.toISOString()
      const reserved: SessionRecord = {
        id: randomBytes(8).toString('hex'),
        title,
        repo_id: repo.id,
        repo_path: repo.root,
        path: '',
        branch,
        branch_created: false,
        program,
        account: '',
        backend: 'hook',
        in_place: false,
        created_at: now,
        updated_at: now,
        status: 0,
        tabs: [],
        remote: { endpoint: '', remote_id: '', slug, via: settings['remote_hooks.provision_cmd'].trim() ? 'provision' : 'launch' },
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
    try {
      await this.launch(record, { origin, branch, commandLine, prompt: request.prompt, settings })
    } catch (error) {
      table.forget(record.id)
      this.drop(record.id)
      await this.releaseHost(record)
      throw await this.launchUndone(hookIntent(record), error)
    } finally {
      table.created(record.id)
    }
    await this.options.creations.end(record.id)
    return record
  }

  /**
   * Undoes what a hook create's launch_cmd may have started: delete_cmd --name <slug>
   * (as the repository's config names it now: refused while it is not trusted), then the
   * token file. What went wrong with delete_cmd, or undefined.
   */
  async undoLaunch(intent: HookIntent): Promise<string | undefined> {
    const settings = await this.options.resolver.runnable(intent.repo_path)
    const failure = await this.runDelete(settings, intent.repo_path, intent.hook.slug)
    await this.options.tokens.remove(intent.id)
    return failure
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

  /** A provisioned host's agent server, master and ssh directory, which svc made: gone before delete_cmd takes the host away. */
  private async releaseHost(record: SessionRecord): Promise<void> {
    const place = placeOf(record)
    if (!place.ssh) return
    await this.ssh.release(record.id, place.slug, place.ssh)
    delete place.ssh
  }

  private async launch(record: SessionRecord, { origin, branch, commandLine, prompt, settings, restore }: LaunchPlan): Promise<void> {
    const { table, tokens } = this.options
    const place = placeOf(record)
    const root = record.repo_path
    const args = ['--name', place.slug, '--title', record.title, '--repo', origin, '--branch', branch, ...(restore ? ['--restore'] : [])]
    const endpoint =
      place.via === 'provision'
        ? await this.provisioned(record, await this.runHookCommand(settings, 'remote_hooks.provision_cmd', root, args), { origin, branch, restore: restore === true })
        : this.launched(await this.runHookCommand(settings, 'remote_hooks.launch_cmd', root, args))
    if (typeof endpoint === 'string') throw new LaunchFailed(endpoint)
    await tokens.write(record.id, endpoint.token)
    place.endpoint = endpoint.url
    this.clients.set(record.id, { client: remoteClient(endpoint), token: endpoint.token })
    let row: SessionWire
    try {
      const health = await this.call(record, 'Health')
      const workspace = health.agent_server?.workspace
      if (!workspace) throw new LaunchFailed(`${endpoint.url} is not an svc agent server (its Health names no agent_server.workspace)`, endpoint.token)
      row = (await this.call(record, 'CreateSession', { title: record.title, repo_path: workspace, program: commandLine, in_place: true, ...(prompt ? { prompt } : {}) })).instance
    } catch (error) {
      if (error instanceof LaunchFailed) throw error
      const what = error instanceof DaemonError ? 'the remote agent server refused the session' : 'the remote agent server did not answer'
      throw new LaunchFailed(`${what}: ${(error as Error).message}`, endpoint.token)
    }
    place.remote_id = row.id
    mirror(record, row)
    if (!restore) record.base_sha = row.worktree.base_sha
    await table.save(record, true, restore)
    this.adopt(record, endpoint.token)
    this.options.log.info({ session: record.title, host: hostOfPlace(place), slug: place.slug, via: place.via }, restore ? 'hook session restored' : 'hook session created')
  }

  /**
   * Kills the remote session, runs delete_cmd, removes the token and the record. A remote
   * that does not answer is reaped (delete_cmd, record removed) only with `force_reap`.
   * An archived session has no remote left: only its record goes.
   */
  kill(request: Req<'KillSessionRequest'>): Promise<void> {
    const { table, tokens, resolver } = this.options
    return table.operate(request, async (record) => {
      const place = placeOf(record)
      if (stateOf(record) !== 'archived') {
        try {
          await this.call(record, 'KillSession', { id: place.remote_id })
        } catch (error) {
          const gone = error instanceof DaemonError && /no session with id/.test(error.message)
          if (isUnreachable(error) && !request.force_reap) {
            throw new Refused(
              `the remote of hook session ${quote(record.title)} at ${hostOfPlace(place)} does not answer; ` +
                'pass force_reap to run delete_cmd and remove the session anyway',
            )
          }
          if (!gone && !isUnreachable(error) && !request.force_reap) throw new Refused(`the remote agent server would not kill the session: ${(error as Error).message}`)
        }
        table.transition(record, 'deleting')
        // Its event feed is let go first: an agent server being stopped need not wait for it.
        this.relay.unwatch(record.id)
        await this.releaseHost(record)
        const settings = await resolver.runnable(record.repo_path)
        const failure = await this.runDelete(settings, record.repo_path, place.slug)
        if (failure) {
          table.transition(record, 'dead')
          await table.save(record)
          throw committed(`the remote session of ${quote(record.title)} was stopped and the session marked dead`, new Error(`${failure}; kill it again with force_reap to retry`))
        }
      }
      await tokens.remove(record.id)
      this.drop(record.id)
      await table.remove(record)
      table.emit(record.id, 'removed')
    })
  }

  /**
   * ArchiveSession: the remote commits what is not committed yet as the snapshot and
   * pushes the session's branch to origin; only then is the remote torn down and the
   * record kept as archived. A push that fails, or a remote that does not answer, refuses
   * the archive with the session running there as before.
   */
  archive(ref: SessionRef): Promise<string> {
    return archiveAlone(this.options.table, ref, (record) => this.options.targetedBy(record), async (record) => {
      // Refused while the repository's config is not trusted, before anything is pushed.
      const settings = await this.options.resolver.runnable(record.repo_path)
      let pushed: ArchivedPush
      try {
        pushed = await this.push(record)
      } catch (error) {
        throw new Refused(`could not archive hook session ${quote(record.title)}: ${(error as Error).message}; it still runs there and nothing was torn down`)
      }
      await this.tearDown(record, pushed, settings)
      return `${pushed.origin}#${record.branch}`
    })
  }

  /** The remote's snapshot and push of the session's branch, failures said (the token never in them). */
  private async push(record: SessionRecord): Promise<ArchivedPush> {
    const { token } = this.clientOf(record)
    const { endpoint } = placeOf(record)
    try {
      const { origin, head, snapshot } = await remoteClient({ url: endpoint, token }, PUSH_TIMEOUT_MS).agentServer.push(record.branch)
      return { origin, head, ...(snapshot ? { snapshot } : {}) }
    } catch (error) {
      const why = redact((error as Error).message, token)
      const host = hostOf(endpoint)
      if (isUnreachable(error)) throw new PushFailed(`its remote at ${host} does not answer (${why})`, true)
      throw new PushFailed(`the remote at ${host} could not push: ${why}`, false)
    }
  }

  /**
   * The remote goes and the record stays, archived: the remote session killed (a remote
   * that does not answer is past asking), delete_cmd run, the token removed. `pushed` is
   * what the remote pushed first, if it could.
   */
  private async tearDown(record: SessionRecord, pushed: ArchivedPush | undefined, settings: Settings): Promise<void> {
    const { table, tokens, log } = this.options
    const place = placeOf(record)
    table.transition(record, 'deleting')
    await this.call(record, 'KillSession', { id: place.remote_id }).catch((error: Error) => {
      log.warn({ session: record.title, err: error }, 'could not kill the remote session; delete_cmd tears its remote down')
    })
    this.relay.unwatch(record.id)
    await this.releaseHost(record)
    const failure = await this.runDelete(settings, record.repo_path, place.slug)
    await tokens.remove(record.id)
    this.drop(record.id)
    place.endpoint = ''
    place.remote_id = ''
    delete place.unreachable
    delete place.idle_reason
    if (pushed) place.archived = pushed
    table.transition(record, 'archived')
    await table.save(record)
    if (failure) {
      throw committed(
        `hook session ${quote(record.title)} was archived`,
        new Error(`${failure}; its remote may still run: run delete_cmd --name ${place.slug} once it can`),
      )
    }
  }

  /** RestoreArchived: a new remote for the session, on the branch its archive pushed. */
  restoreArchived(ref: SessionRef): Promise<string> {
    return this.options.table.operate(ref, async (record) => {
      refuseUnarchived(record)
      await this.relaunch(record)
      return record.path
    })
  }

  /**
   * RestoreSession: an archived session is restored as RestoreArchived does; a lost or
   * dead one (or, with force_reap, any) first has its remote pushed when it answers (a
   * failed push refuses, nothing torn down) and torn down, then gets a new remote on the
   * branch as origin has it. Work a remote that no longer answers did not push is lost
   * with it.
   */
  restoreSession(request: Req<'RestoreSessionRequest'>): Promise<void> {
    refuseOtherBoot(request.expected_daemon_boot_id, this.options.bootId)
    return this.options.table.operate(request, async (record) => {
      refuseRestoring(record, request.force_reap)
      if (stateOf(record) !== 'archived') {
        const settings = await this.options.resolver.runnable(record.repo_path)
        await this.tearDown(record, await this.pushIfReachable(record), settings)
      }
      await this.relaunch(record)
    })
  }

  /** The push before a restore replaces the remote: skipped when nothing answers there, refused when the push fails. */
  private async pushIfReachable(record: SessionRecord): Promise<ArchivedPush | undefined> {
    if (!this.clients.has(record.id)) return undefined
    try {
      return await this.push(record)
    } catch (error) {
      if (error instanceof PushFailed && error.unreachable) {
        this.options.log.warn({ session: record.title, reason: (error as Error).message }, 'restoring a hook session whose remote does not answer: its unpushed work is not recovered')
        return undefined
      }
      throw new Refused(`could not restore hook session ${quote(record.title)}: ${(error as Error).message}; nothing was torn down`)
    }
  }

  /**
   * A new remote for an archived session: launch_cmd with `--restore` at the session's
   * branch, the session created there in place with a brief that says it resumes. A
   * failed launch leaves it archived (delete_cmd run, as a failed create does).
   */
  private async relaunch(record: SessionRecord): Promise<void> {
    const { table, resolver } = this.options
    const settings = await resolver.runnable(record.repo_path)
    const origin = await originOf(record.repo_path, this.options.hookEnv())
    const place = placeOf(record)
    const pushed = place.archived
    const prompt = resumeBrief({ branch: record.branch, pushed, goal: record.first_prompt })
    delete place.archived
    table.transition(record, 'loading')
    await table.save(record, false)
    try {
      await this.launch(record, { origin, branch: record.branch, commandLine: commandLineOf(record.program, settings.program_overrides), prompt, settings, restore: true })
    } catch (error) {
      this.drop(record.id)
      await this.releaseHost(record)
      const failure = await this.undoLaunch(hookIntent(record)).catch((undoError: Error) => undoError.message)
      place.endpoint = ''
      place.remote_id = ''
      if (pushed) place.archived = pushed
      table.transition(record, 'archived')
      await table.save(record)
      throw launchRefusal(hookIntent(record), error, failure, 'restore')
    }
  }

  // ---------------------------------------------------------------- forwarded

  /** The remote's verdict on a prompt typed into the session; the caller holds the session. */
  private async prompt(record: SessionRecord, prompt: string): Promise<DeliveryStatus> {
    const { status } = await this.ask(record, 'SendPrompt', { id: placeOf(record).remote_id, prompt })
    if (record.first_prompt === undefined) {
      // A restore's brief names it.
      record.first_prompt = prompt
      await this.options.table.save(record)
    }
    await this.refresh(record).catch(() => {})
    return status
  }

  sendPrompt(request: CheckedRequestOf<'SendPrompt'>): Promise<DeliveryStatus> {
    return this.options.table.operate(request, async (record) => {
      liveOrRefuse(record)
      return this.prompt(record, request.prompt)
    })
  }

  /**
   * DeliverPrompt: the remote's SendPrompt verdict; with `defer_while_attached`, the
   * remote's DeliverPrompt, which knows whether a person is at the terminal there (leases
   * taken through the home reach it) and delivers a deferred prompt itself later.
   */
  deliverPrompt(ref: SessionRef, request: CheckedRequestOf<'DeliverPrompt'>): Promise<Req<'DeliverPromptResponse'>> {
    return this.options.table.operate(ref, async (record) => {
      liveOrRefuse(record)
      const { prompt } = request
      if (!request.defer_while_attached) return { status: 'sent', delivery: await this.prompt(record, prompt) }
      // Named by title there: asked only of a session the remote has, so it never creates one.
      const { instances } = await this.ask(record, 'Snapshot', {})
      const row = instances.find((instance) => instance.id === placeOf(record).remote_id)
      if (!row) throw new Refused(`the remote agent server at ${hostOf(placeOf(record).endpoint)} no longer has hook session ${quote(record.title)}`)
      const answer = await this.ask(record, 'DeliverPrompt', { title: row.title, repo_path: row.repo_path, prompt, defer_while_attached: true })
      await this.refresh(record).catch(() => {})
      return answer
    })
  }

  async preview(request: Req<'PreviewRequest'>): Promise<Req<'PreviewResponse'>> {
    const record = this.options.table.find(request)
    const { title: _title, repo_id: _repo, id: _id, ...rest } = request
    return this.ask(record, 'Preview', { ...rest, id: placeOf(record).remote_id })
  }

  async pauseStatusPoll(record: SessionRecord, holder: string): Promise<void> {
    await this.ask(record, 'PauseStatusPoll', { id: placeOf(record).remote_id, holder })
  }

  async resumeStatusPoll(record: SessionRecord, holder: string): Promise<void> {
    await this.ask(record, 'ResumeStatusPoll', { id: placeOf(record).remote_id, holder })
  }

  /** A change to the remote's tabs, then the roster as the remote has it. */
  private changeTabs<T>(ref: SessionRef, change: (record: SessionRecord, id: string) => Promise<T>): Promise<T> {
    return this.options.table.operate(ref, async (record) => {
      const result = await change(record, placeOf(record).remote_id)
      await this.refresh(record).catch(() => {})
      return result
    })
  }

  createTab(request: Req<'CreateTabRequest'>): Promise<Req<'CreateTabResponse'>> {
    const kind = tabKindOf(request)
    if (kind !== TabKind.web || !request.url?.startsWith('https://')) {
      throw new Refused('a hook session takes only https web tabs (kind web with an https:// url): its agent runs on a remote host, where shells, processes, editors and local ports are not reachable from here')
    }
    return this.changeTabs(request, (record, id) => {
      liveOrRefuse(record)
      return this.ask(record, 'CreateTab', { id, kind: 'web', url: request.url, ...(request.name ? { name: request.name } : {}) })
    })
  }

  closeTab(request: Req<'CloseTabRequest'>): Promise<string> {
    const { title: _title, repo_id: _repo, id: _id, ...tab } = request
    return this.changeTabs(request, async (record, id) => (await this.ask(record, 'CloseTab', { ...tab, id })).name)
  }

  renameTab(request: Req<'RenameTabRequest'>): Promise<string> {
    const { title: _title, repo_id: _repo, id: _id, ...tab } = request
    return this.changeTabs(request, async (record, id) => (await this.ask(record, 'RenameTab', { ...tab, id })).name)
  }

  reorderTab(request: Req<'ReorderTabRequest'>): Promise<{ name: string; index: number }> {
    const { title: _title, repo_id: _repo, id: _id, ...tab } = request
    return this.changeTabs(request, async (record, id) => {
      const { name, index } = await this.ask(record, 'ReorderTab', { ...tab, id })
      return { name, index }
    })
  }

  resumeFromLimit(ref: SessionRef): Promise<void> {
    return this.changeTabs(ref, async (record, id) => {
      await this.ask(record, 'ResumeFromLimit', { id })
    })
  }

  handoff(): Promise<Req<'HandoffSessionResponse'>> {
    return notYet('handoff')
  }
}
