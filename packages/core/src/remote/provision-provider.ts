import type { Logger } from 'pino'
import type { Config } from '../config/config.js'
import type { RemotePlace, SessionRecord } from '../sessions/record.js'
import { hostOf, type Endpoint } from './endpoint.js'
import type { HookScripts } from './hook-scripts.js'
import { scriptArgs, type StartPlan } from './provider.js'
import { parseProvisionedHost, type ProvisionedHost } from './ssh-host.js'
import type { SshLinks } from './ssh-links.js'
import type { SessionMasters } from './ssh-masters.js'
import { placeOf } from './hook-remotes.js'
import { OverSsh } from './ssh-provider.js'

/**
 * `provision_cmd`: the repository's script makes a host and prints how to reach it; svc
 * reaches it over ssh with its key pinned, starts its own agent server there and
 * forwards a local port to it (see SshLinks), a master per session. What svc made there
 * goes before delete_cmd takes the host away.
 */
export class ProvisionProvider extends OverSsh {
  readonly scripted = true

  constructor(
    private readonly scripts: HookScripts,
    private readonly config: Pick<Config, 'get'>,
    ssh: SshLinks,
    private readonly masters: SessionMasters,
    log: Logger,
  ) {
    super(ssh, log, 'provision')
  }

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
      const provisioned = await this.ssh.provision(record.id, host, { slug: place.slug, repo: origin, branch, ...(base ? { base } : {}), restore }, () => Promise.resolve(svc))
      place.ssh = provisioned.place
      return provisioned.endpoint
    } catch (error) {
      return (error as Error).message
    }
  }

  describe(place: RemotePlace): string {
    return place.ssh?.host ?? (place.endpoint ? hostOf(place.endpoint) : 'its provisioned host')
  }

  /** ssh directories (their masters ended) that no session or pending intent names. */
  async sweep(named: ReadonlySet<string>): Promise<void> {
    for (const id of await this.masters.ids()) {
      if (named.has(id)) continue
      this.log.warn({ id }, 'removing an ssh directory no session names')
      await this.masters.forget(id)
    }
  }
}
