import type { Logger } from 'pino'
import type { Config } from '../config/config.js'
import type { HookIntent } from '../sessions/reconcile.js'
import type { RemotePlace, SessionRecord } from '../sessions/record.js'
import { hostOf, type Endpoint } from './endpoint.js'
import type { HookScripts } from './hook-scripts.js'
import { scriptArgs, type RemoteProvider, type StartPlan } from './provider.js'
import { parseProvisionedHost, type ProvisionedHost } from './ssh-host.js'
import { letGo, type Release, type Released, type SshLinks } from './ssh-links.js'
import { placeOf } from './hook-remotes.js'

/**
 * `provision_cmd`: the repository's script makes a host and prints how to reach it; svc
 * reaches it over ssh with its key pinned, starts its own agent server there and
 * forwards a local port to it (see SshLinks). What svc made there goes before delete_cmd
 * takes the host away.
 */
export class ProvisionProvider implements RemoteProvider {
  readonly scripted = true

  constructor(
    private readonly scripts: HookScripts,
    private readonly config: Pick<Config, 'get'>,
    private readonly ssh: SshLinks,
    private readonly log: Logger,
  ) {}

  async start(record: SessionRecord, plan: StartPlan): Promise<Endpoint | string> {
    const { settings, intent, origin, branch, base, restore } = plan
    const run = await this.scripts.run(settings, 'remote_hooks.provision_cmd', record.repo_path, scriptArgs(record, plan), intent)
    const failed = this.scripts.failure(run, 'provision_cmd')
    if (failed !== undefined) return failed
    const place = placeOf(record)
    let host: ProvisionedHost
    try {
      host = parseProvisionedHost(run.stdout)
    } catch (error) {
      return this.scripts.unusable(run, 'provision_cmd', error)
    }
    // Before svc reaches it: a daemon that dies from here on releases the host at its next start.
    intent.hook.ssh = { host: host.host, ...(host.port ? { port: host.port } : {}), ...(host.user ? { user: host.user } : {}), remote_port: 0 }
    await this.scripts.journal(intent)
    try {
      const svc = this.config.get('remote_svc_command')
      const provisioned = await this.ssh.provision(record.id, host, { slug: place.slug, repo: origin, branch, ...(base ? { base } : {}), restore, svc })
      place.ssh = provisioned.place
      return provisioned.endpoint
    } catch (error) {
      return (error as Error).message
    }
  }

  /** Its master and forward ended with the daemon: reopened (the known_hosts file kept); its token waits for the forward. */
  reach(record: SessionRecord): boolean {
    const { ssh, slug, endpoint } = placeOf(record)
    if (!ssh) return false
    this.ssh.resume(record.id, slug, ssh, endpoint)
    return true
  }

  /**
   * svc's agent server, master and ssh directory on the host, gone (its work put on origin
   * first, see stopScript). The record keeps the host while the host keeps work or did
   * not answer.
   */
  async stop(record: SessionRecord, how: Omit<Release, 'branch'>): Promise<Released> {
    const place = placeOf(record)
    if (!place.ssh) return { removed: true }
    const released = await this.ssh.release(record.id, place.slug, place.ssh, { ...how, branch: record.branch })
    if (letGo(released, how.force)) delete place.ssh
    return released
  }

  describe(place: RemotePlace): string {
    return place.ssh?.host ?? (place.endpoint ? hostOf(place.endpoint) : 'its provisioned host')
  }

  /** A host an interrupted start reached (its intent names it, no record does): released as a record's would be. */
  async undo({ id, hook: { ssh, slug, branch } }: HookIntent): Promise<void> {
    if (!ssh) return
    const released = await this.ssh.release(id, slug, ssh, { branch, discard: false, force: true })
    if ('kept' in released) this.log.warn({ host: ssh.host, slug, why: released.kept }, 'an interrupted start left its workspace on the host')
  }

  /** ssh directories (their masters ended) that no session or pending intent names. */
  async sweep(named: ReadonlySet<string>): Promise<void> {
    for (const id of await this.ssh.ids()) {
      if (named.has(id)) continue
      this.log.warn({ id }, 'removing an ssh directory no session names')
      await this.ssh.forget(id)
    }
  }

  close(): Promise<void> {
    return this.ssh.close()
  }
}
