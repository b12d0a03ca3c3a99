import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { Static } from 'typebox'
import { DaemonError, quote, TabKind, type Client, type DeliveryStatus, type RequestOf, type ResponseOf, type RouteName } from '@svc/protocol'
import type * as wire from '@svc/protocol'
import { commandLineOf } from '../agents.js'
import type { Config } from '../config/config.js'
import type { ConfigResolver } from '../config/resolver.js'
import type { Settings } from '../config/keys.js'
import { committed, type SessionRef, type SessionTable } from '../sessions/table.js'
import { InvalidRequest, Refused } from '../errors.js'
import { git, type Repository } from '../infra/git.js'
import { liveOrRefuse } from '../sessions/prompts.js'
import { setState, type SessionRecord, type SessionWire } from '../sessions/record.js'
import type { Runtime } from '../sessions/runtime.js'
import { tabKindOf } from '../sessions/tabs.js'
import { allocateTitle } from '../sessions/titles.js'
import { currentCheckout } from '../sessions/worktree.js'
import { hostOf, isUnreachable, parseEndpoint, redact, remoteClient, type Endpoint } from './endpoint.js'
import { hookArgv, runHook, type HookRun } from './hook-command.js'
import { EventRelay, type RelayedKind } from './event-relay.js'
import type { RemoteLink } from './link.js'
import { mirror } from './mirror.js'
import { slugOf } from './slug.js'
import { parseProvisionedHost, type ProvisionedHost } from './ssh-host.js'
import { SshLinks, type SshTimings } from './ssh-links.js'
import type { RemoteTokens } from './tokens.js'

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

/** The host a hook session runs on, as messages name it: the provisioned host, else its endpoint's. */
function hostOfPlace(place: NonNullable<SessionRecord['remote']>): string {
  return place.ssh?.host ?? hostOf(place.endpoint)
}

function notYet(what: string): Promise<never> {
  return Promise.reject(new Refused(`${what} of hook sessions is not supported yet`))
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
    const place = placeOf(record)
    let changed = place.unreachable === true
    delete place.unreachable
    if (row) changed = mirror(record, row) || changed
    else changed = setState(record, 'dead') || changed
    if (!changed || !this.options.table.records.has(record.id)) return
    this.options.table.touch(record)
    await this.options.table.save(record, false)
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
  private async provisioned(record: SessionRecord, run: HookRun, start: { origin: string; branch: string }): Promise<Endpoint | string> {
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
      const provisioned = await this.ssh.provision(record.id, host, { slug: place.slug, repo: start.origin, branch: start.branch, restore: false, svc })
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
    const origin = (await git(repo.root, ['remote', 'get-url', 'origin'], env).catch((error: Error) => {
      throw new Refused(`hook sessions clone the repository's origin remote, and ${repo.root} has none usable (${error.message})`)
    })).trim()
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
      }
      setState(reserved, 'loading')
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
      throw error
    } finally {
      table.created(record.id)
    }
    return record
  }

  private async launch(
    record: SessionRecord,
    { origin, branch, commandLine, prompt, settings }: { origin: string; branch: string; commandLine: string; prompt: string | undefined; settings: Settings },
  ): Promise<void> {
    const { table, tokens } = this.options
    const place = placeOf(record)
    const root = record.repo_path
    const fail = async (reason: string, token?: string): Promise<never> => {
      if (place.ssh) await this.ssh.release(record.id, place.slug, place.ssh)
      const deleted = await this.runDelete(settings, root, place.slug)
      await tokens.remove(record.id)
      const cleanup = deleted ? `; then ${deleted}` : `; delete_cmd --name ${place.slug} ran`
      throw new Refused(redact(`could not start hook session ${quote(record.title)}: ${reason}${cleanup}`, token))
    }
    const args = ['--name', place.slug, '--title', record.title, '--repo', origin, '--branch', branch]
    const endpoint =
      place.via === 'provision'
        ? await this.provisioned(record, await this.runHookCommand(settings, 'remote_hooks.provision_cmd', root, args), { origin, branch })
        : this.launched(await this.runHookCommand(settings, 'remote_hooks.launch_cmd', root, args))
    if (typeof endpoint === 'string') return fail(endpoint)
    await tokens.write(record.id, endpoint.token)
    place.endpoint = endpoint.url
    this.clients.set(record.id, { client: remoteClient(endpoint), token: endpoint.token })
    let row: SessionWire
    try {
      const health = await this.call(record, 'Health')
      const workspace = health.agent_server?.workspace
      if (!workspace) return await fail(`${endpoint.url} is not an svc agent server (its Health names no agent_server.workspace)`, endpoint.token)
      row = (await this.call(record, 'CreateSession', { title: record.title, repo_path: workspace, program: commandLine, in_place: true, ...(prompt ? { prompt } : {}) })).instance
    } catch (error) {
      if (error instanceof Refused) throw error
      const what = error instanceof DaemonError ? 'the remote agent server refused the session' : 'the remote agent server did not answer'
      return fail(`${what}: ${(error as Error).message}`, endpoint.token)
    }
    place.remote_id = row.id
    mirror(record, row)
    record.base_sha = row.worktree.base_sha
    await table.save(record)
    this.adopt(record, endpoint.token)
    this.options.log.info({ session: record.title, host: hostOfPlace(place), slug: place.slug, via: place.via }, 'hook session created')
  }

  /**
   * Kills the remote session, runs delete_cmd, removes the token and the record. A remote
   * that does not answer is reaped (delete_cmd, record removed) only with `force_reap`.
   */
  kill(request: Req<'KillSessionRequest'>): Promise<void> {
    const { table, tokens, resolver } = this.options
    return table.operate(request, async (record) => {
      const place = placeOf(record)
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
      // svc started the agent server on a provisioned host: svc stops it, before delete_cmd takes the host away.
      if (place.ssh) await this.ssh.release(record.id, place.slug, place.ssh)
      const settings = await resolver.runnable(record.repo_path)
      const failure = await this.runDelete(settings, record.repo_path, place.slug)
      if (failure) {
        table.transition(record, 'dead')
        await table.save(record)
        throw committed(`the remote session of ${quote(record.title)} was stopped and the session marked dead`, new Error(`${failure}; kill it again with force_reap to retry`))
      }
      await tokens.remove(record.id)
      this.drop(record.id)
      await table.remove(record)
      table.emit(record.id, 'removed')
    })
  }

  // ---------------------------------------------------------------- forwarded

  sendPrompt(request: Req<'SendPromptRequest'>): Promise<DeliveryStatus> {
    if (!request.prompt) throw new InvalidRequest('prompt is required')
    return this.options.table.operate(request, async (record) => {
      liveOrRefuse(record)
      const { status } = await this.ask(record, 'SendPrompt', { id: placeOf(record).remote_id, prompt: request.prompt })
      await this.refresh(record).catch(() => {})
      return status
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

  archive(): Promise<string> {
    return notYet('archive')
  }

  restoreArchived(): Promise<string> {
    return notYet('restore')
  }

  restoreSession(): Promise<void> {
    return notYet('restore')
  }

  handoff(): Promise<Req<'HandoffSessionResponse'>> {
    return notYet('handoff')
  }
}
