import type { Logger } from 'pino'
import { quote } from '@svc/protocol'
import type { Config } from '../config/config.js'
import type { Settings } from '../config/keys.js'
import { Refused } from '../errors.js'
import { stateOf } from '../sessions/record.js'
import type { RemotePlace, SessionRecord } from '../sessions/record.js'
import type { Endpoint } from './endpoint.js'
import { placeOf } from './hook-remotes.js'
import type { HookScripts } from './hook-scripts.js'
import type { StartPlan } from './provider.js'
import type { Prepare, SshLinks } from './ssh-links.js'
import type { HostMasters } from './ssh-masters.js'
import { OverSsh } from './ssh-provider.js'

/**
 * `backend: "ssh"`: the session runs on a host of the global ssh_hosts, reached with the
 * key pinned there over the host's one shared master; svc clones the repository there,
 * installs itself first when the host lacks this version (`prepare`), and starts its
 * agent server. No script: svc made the workspace and removes it (after the push).
 */
export class SshHostProvider extends OverSsh {
  readonly scripted = false

  constructor(
    private readonly scripts: Pick<HookScripts, 'journal'>,
    private readonly config: Pick<Config, 'get'>,
    ssh: SshLinks,
    private readonly masters: HostMasters,
    private readonly prepare: Prepare,
    log: Logger,
  ) {
    super(ssh, log, 'ssh')
  }

  async start(record: SessionRecord, { intent, origin, branch, base, restore }: StartPlan): Promise<Endpoint | string> {
    const place = placeOf(record)
    const name = place.ssh_host ?? ''
    const entry = this.config.get('ssh_hosts')[name]
    if (!entry) return `ssh host ${quote(name)} is not in ssh_hosts any more ("svc hosts list" shows them; "svc hosts add" adds one)`
    const { host, port, user } = entry
    const reached = { name, host, ...(port ? { port } : {}), ...(user ? { user } : {}) }
    // Before svc reaches it: a daemon that dies from here on releases what it made there at its next start.
    intent.hook.ssh = { ...reached, remote_port: 0 }
    await this.scripts.journal(intent)
    try {
      const provisioned = await this.ssh.provision(record.id, { ...reached, hostKey: entry.host_key }, { slug: place.slug, repo: origin, branch, ...(base ? { base } : {}), restore }, this.prepare)
      place.ssh = provisioned.place
      return provisioned.endpoint
    } catch (error) {
      return (error as Error).message
    }
  }

  describe(place: RemotePlace): string {
    return place.ssh_host ?? place.ssh?.name ?? 'its ssh host'
  }

  /** Host directories whose master no session uses (a daemon that died may have left it running). */
  async sweep(): Promise<void> {
    for (const name of await this.masters.names()) await this.masters.forget(name)
  }
}

/**
 * A config write that takes a host out of ssh_hosts while sessions not archived run on it
 * (or its host keeps their work) is refused: their teardown and push need it.
 */
export function refuseHostsInUse(records: Iterable<SessionRecord>, next: Settings): void {
  for (const record of records) {
    const name = record.remote?.ssh_host
    if (name === undefined || name in next.ssh_hosts || stateOf(record) === 'archived') continue
    throw new Refused(`ssh host ${quote(name)} runs session ${quote(record.title)}: archive or kill its sessions first, then remove it`)
  }
}
