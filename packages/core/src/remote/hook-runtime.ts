import { quote, TabKind, type CheckedRequestOf } from '@svc/protocol'
import type { SessionRef } from '../sessions/table.js'
import { Refused } from '../errors.js'
import { liveOrRefuse } from '../sessions/prompts.js'
import { archivedRef, remoteNoun, stateOf, type SessionRecord } from '../sessions/record.js'
import { archiveAlone, refuseOtherBoot, refuseRestoring, refuseUnarchived } from '../sessions/lifecycle-guards.js'
import type { Runtime } from '../sessions/runtime.js'
import { tabKindOf } from '../sessions/tabs.js'
import { hostOf } from './endpoint.js'
import type { HookOptions } from './hook-options.js'
import { HookRemotes, placeOf } from './hook-remotes.js'
import { HookServers, type HookCreate } from './hook-servers.js'
import { HookScripts } from './hook-scripts.js'
import { DockerProvider } from './docker-provider.js'
import { ExecPipes } from './docker-pipes.js'
import { EngineTunnels } from './docker-ssh.js'
import { hostInstall } from './host-install.js'
import { LaunchProvider } from './launch-provider.js'
import type { RemoteLink } from './link.js'
import type { Providers } from './provider.js'
import { ProvisionProvider } from './provision-provider.js'
import { SshHostProvider } from './ssh-host-provider.js'
import { SshLinks, type HostSource, type SshListener } from './ssh-links.js'
import { HostMasters, SessionMasters, type SshMasters } from './ssh-masters.js'
import { HookTeardown } from './teardown.js'
import type { Req } from '../wire.js'
import type { HookIntent } from '../sessions/reconcile.js'


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
  /** Each session's remote as the home reaches it: restored at start, closed at stop, the relays' links. */
  private readonly remotes: HookRemotes
  /** The agent servers the sessions run on, started (a create, a restore) by their provider. */
  private readonly servers: HookServers
  /** How their remotes go, once their work is on origin. */
  private readonly teardown: HookTeardown
  /** The way to docker.host engines on other machines. */
  private readonly tunnels: EngineTunnels

  constructor(private readonly options: HookOptions) {
    const scripts = new HookScripts(options)
    const runner = { command: () => options.config.get('remote_ssh_command'), env: () => options.hookEnv(), timeoutMs: options.timeoutMs }
    const listener: SshListener = { down: (id) => this.remotes.down(id), up: (id, endpoint) => this.remotes.up(id, endpoint) }
    const links = (masters: SshMasters, source: HostSource) => new SshLinks({
      masters,
      source,
      runner,
      log: options.log,
      timings: options.sshTimings,
      listener,
    })
    const sessionMasters = new SessionMasters(options.sshDir, runner)
    const hostMasters = new HostMasters(options.sshHostsDir, runner)
    const engineMasters = new HostMasters(options.dockerSshDir, runner)
    this.tunnels = new EngineTunnels({ masters: engineMasters, config: options.config, env: options.env })
    const install = hostInstall({ config: options.config, home: options.home, env: options.env, log: options.log })
    // One per backend that runs sessions elsewhere; `via` in a record names its own.
    const providers: Providers = {
      launch: new LaunchProvider(scripts, options.config),
      provision: new ProvisionProvider(scripts, options.config, links(sessionMasters, 'provision_cmd'), sessionMasters, options.log),
      ssh: new SshHostProvider(scripts, options.config, links(hostMasters, 'ssh_hosts'), hostMasters, install, options.log),
      docker: new DockerProvider({ engine: options.docker, tunnels: this.tunnels, links: links(engineMasters, 'docker.host'), pipes: new ExecPipes({ engine: options.docker, listener, log: options.log }), scripts, home: options.home, env: options.env, paneEnv: (record) => options.paneEnv(record), config: options.config, log: options.log }),
    }
    this.remotes = new HookRemotes(options, providers)
    this.servers = new HookServers(options, this.remotes, scripts, providers)
    this.teardown = new HookTeardown(options, this.remotes, scripts, providers)
  }

  /** Why the Docker Engine cannot run docker sessions now, or undefined when it answers. */
  engineDown(): Promise<string | undefined> {
    return this.options.docker.unavailable()
  }

  /** The DOCKER_HOST docker commands for docker.host `host` run with (see EngineTunnels.dockerHost). */
  dockerHost(host: string): Promise<string> {
    return this.tunnels.dockerHost(host)
  }

  /** CreateSession with `backend: "hook"` or `"docker"` (see HookServers.create). */
  create(create: HookCreate): Promise<SessionRecord> {
    return this.servers.create(create)
  }

  /** At start: the hook sessions as saved, each reached again by its provider. */
  restore(records: SessionRecord[]): Promise<void> {
    return this.remotes.restore(records)
  }

  /** At start, once interrupted steps are settled: what no session or pending intent names goes. */
  sweep(named: ReadonlySet<string>): Promise<void> {
    return this.remotes.sweep(named)
  }

  close(): Promise<void> {
    return this.remotes.close()
  }

  /** The link the stream relay reaches the session by. */
  linkOf(record: SessionRecord): RemoteLink {
    return this.remotes.linkOf(record)
  }

  /**
   * KillSession: the remote goes once its work is on origin (see HookTeardown.retire),
   * then the token and the record. Work that cannot be put on origin keeps the session,
   * lost, until a kill with `discard`; a remote nobody reaches goes only with
   * `force_reap`. An archived session has no remote left: only its record goes.
   */
  kill(request: Req<'KillSessionRequest'>): Promise<void> {
    const { table, resolver } = this.options
    return table.operate(request, async (record) => {
      if (stateOf(record) !== 'archived') {
        // Refused now, while the config is not trusted, before anything is stopped.
        const settings = await resolver.runnable(record.repo_path)
        await this.teardown.retire(record, { settings, end: 'removed', forceReap: request.force_reap === true, discard: request.discard === true })
      } else {
        await this.teardown.removeRecord(record)
      }
    })
  }

  /**
   * ArchiveSession, in a local archive's order: the agent is stopped (the remote archives
   * its session in place, so nothing it writes on its way out is left behind), then the
   * remote commits what is not committed yet as the snapshot and pushes the session's
   * branch to origin; only then is the remote torn down and the record kept as archived.
   * A push that fails starts the agent there again and refuses the archive, nothing torn
   * down; a remote that does not answer refuses it before anything.
   */
  archive(ref: SessionRef): Promise<Req<'ArchiveSessionResponse'>> {
    return archiveAlone(this.options.table, ref, (record) => this.options.targetedBy(record), async (record) => {
      // Refused while the repository's config is not trusted, before anything is stopped.
      const settings = await this.options.resolver.runnable(record.repo_path)
      await this.teardown.retire(record, { settings, end: 'archived', forceReap: false, discard: false })
      const ref = archivedRef(record) as string
      return { ok: true, archived_path: ref, archived_ref: ref }
    })
  }

  /** At start: an interrupted create or restore undone, or an interrupted teardown finished, from its intent. */
  settle(intent: HookIntent): Promise<string | undefined> {
    return intent.hook.teardown ? this.teardown.finish(intent) : this.servers.undoLaunch(intent)
  }

  /** RestoreArchived: a new remote for the session, on the branch its archive pushed. */
  restoreArchived(ref: SessionRef): Promise<string> {
    return this.options.table.operate(ref, async (record) => {
      refuseUnarchived(record)
      await this.servers.relaunch(record)
      return record.path
    })
  }

  /**
   * RestoreSession: an archived session is restored as RestoreArchived does; a lost or
   * dead one (or, with force_reap, any) first has its work put on origin and its remote
   * torn down (see HookServers.retire: refused, nothing torn down, when that cannot be
   * done), then gets a new remote on the branch as origin has it. With force_reap, a
   * remote nobody reaches is replaced with what it did not push lost.
   */
  restoreSession(request: Req<'RestoreSessionRequest'>): Promise<void> {
    refuseOtherBoot(request.expected_daemon_boot_id, this.options.bootId)
    return this.options.table.operate(request, async (record) => {
      refuseRestoring(record, request.force_reap)
      if (stateOf(record) !== 'archived') {
        const settings = await this.options.resolver.runnable(record.repo_path)
        await this.teardown.retire(record, { settings, end: 'replaced', forceReap: request.force_reap === true, discard: false })
      }
      await this.servers.relaunch(record)
    })
  }

  // ---------------------------------------------------------------- forwarded

  /** The remote's verdict on a prompt typed into the session; the caller holds the session. */
  private async prompt(record: SessionRecord, prompt: string): Promise<Req<'SendPromptResponse'>> {
    const verdict = await this.remotes.ask(record, 'SendPrompt', { id: placeOf(record).remote_id, prompt })
    if (record.first_prompt === undefined) {
      // A restore's brief names it.
      record.first_prompt = prompt
      await this.options.table.save(record)
    }
    await this.remotes.refresh(record).catch(() => {})
    return verdict
  }

  sendPrompt(request: CheckedRequestOf<'SendPrompt'>): Promise<Req<'SendPromptResponse'>> {
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
      if (!request.defer_while_attached) return { status: 'sent', delivery: (await this.prompt(record, prompt)).status }
      // Named by title there: asked only of a session the remote has, so it never creates one.
      const { instances } = await this.remotes.ask(record, 'Snapshot', {})
      const row = instances.find((instance) => instance.id === placeOf(record).remote_id)
      if (!row) throw new Refused(`the remote agent server at ${hostOf(placeOf(record).endpoint)} no longer has ${remoteNoun(record.remote)} ${quote(record.title)}`)
      const answer = await this.remotes.ask(record, 'DeliverPrompt', { title: row.title, repo_path: row.repo_path, prompt, defer_while_attached: true })
      await this.remotes.refresh(record).catch(() => {})
      return answer
    })
  }

  async preview(request: Req<'PreviewRequest'>): Promise<Req<'PreviewResponse'>> {
    const record = this.options.table.find(request)
    const { title: _title, repo_id: _repo, id: _id, ...rest } = request
    return this.remotes.ask(record, 'Preview', { ...rest, id: placeOf(record).remote_id })
  }

  async pauseStatusPoll(record: SessionRecord, holder: string): Promise<void> {
    await this.remotes.ask(record, 'PauseStatusPoll', { id: placeOf(record).remote_id, holder })
  }

  async resumeStatusPoll(record: SessionRecord, holder: string): Promise<void> {
    await this.remotes.ask(record, 'ResumeStatusPoll', { id: placeOf(record).remote_id, holder })
  }

  /** A change to the remote's tabs, then the roster as the remote has it. */
  private changeTabs<T>(ref: SessionRef, change: (record: SessionRecord, id: string) => Promise<T>): Promise<T> {
    return this.options.table.operate(ref, async (record) => {
      const result = await change(record, placeOf(record).remote_id)
      await this.remotes.refresh(record).catch(() => {})
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
      return this.remotes.ask(record, 'CreateTab', { id, kind: 'web', url: request.url, ...(request.name ? { name: request.name } : {}) })
    })
  }

  closeTab(request: Req<'CloseTabRequest'>): Promise<string> {
    const { title: _title, repo_id: _repo, id: _id, ...tab } = request
    return this.changeTabs(request, async (record, id) => (await this.remotes.ask(record, 'CloseTab', { ...tab, id })).name)
  }

  renameTab(request: Req<'RenameTabRequest'>): Promise<string> {
    const { title: _title, repo_id: _repo, id: _id, ...tab } = request
    return this.changeTabs(request, async (record, id) => (await this.remotes.ask(record, 'RenameTab', { ...tab, id })).name)
  }

  reorderTab(request: Req<'ReorderTabRequest'>): Promise<{ name: string; index: number }> {
    const { title: _title, repo_id: _repo, id: _id, ...tab } = request
    return this.changeTabs(request, async (record, id) => {
      const { name, index } = await this.remotes.ask(record, 'ReorderTab', { ...tab, id })
      return { name, index }
    })
  }

  resumeFromLimit(ref: SessionRef): Promise<void> {
    return this.changeTabs(ref, async (record, id) => {
      await this.remotes.ask(record, 'ResumeFromLimit', { id })
    })
  }

  handoff(): Promise<Req<'HandoffSessionResponse'>> {
    return notYet('handoff')
  }
}
