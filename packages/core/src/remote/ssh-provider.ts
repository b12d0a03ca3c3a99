import type { Logger } from 'pino'
import type { HookIntent } from '../sessions/reconcile.js'
import type { RemotePlace, SessionRecord } from '../sessions/record.js'
import type { Endpoint } from './endpoint.js'
import { placeOf } from './hook-remotes.js'
import type { RemoteProvider, StartPlan } from './provider.js'
import { letGo, type Release, type Released, type SshLinks } from './ssh-links.js'

/**
 * What the providers that start svc's agent server over ssh share (provision_cmd's
 * hosts, ssh_hosts): how a session is reached again after a restart, released (its work
 * put on origin first), and undone after an interrupted start. Each says how it starts.
 */
export abstract class OverSsh implements RemoteProvider {
  constructor(
    protected readonly ssh: SshLinks,
    protected readonly log: Logger,
    private readonly via: RemotePlace['via'],
  ) {}

  abstract start(record: SessionRecord, plan: StartPlan): Promise<Endpoint | string>
  abstract describe(place: RemotePlace): string
  abstract readonly scripted: boolean

  /** Its master and forward ended with the daemon: reopened (the known_hosts file kept); its token waits for the forward. */
  reach(record: SessionRecord): boolean {
    const { ssh, slug, endpoint } = placeOf(record)
    if (!ssh) return false
    this.ssh.resume(record.id, slug, ssh, endpoint)
    return true
  }

  /**
   * svc's agent server and workspace on the host, gone (its work put on origin first, see
   * stopScript), and the session's master (or its share of its host's). The record keeps
   * the host while the host keeps work or did not answer.
   */
  async stop(record: SessionRecord, how: Omit<Release, 'branch'>): Promise<Released> {
    const place = placeOf(record)
    if (!place.ssh) return { removed: true }
    const released = await this.ssh.release(record.id, place.slug, place.ssh, { ...how, branch: record.branch })
    if (letGo(released, how.force)) delete place.ssh
    return released
  }

  /** A host an interrupted start of this provider reached (its intent names it, no record does): released as a record's would be. */
  async undo({ id, hook: { ssh, slug, branch, via = 'provision' } }: HookIntent): Promise<void> {
    if (!ssh || via !== this.via) return
    const released = await this.ssh.release(id, slug, ssh, { branch, discard: false, force: true })
    if ('kept' in released) this.log.warn({ host: ssh.name ?? ssh.host, slug, why: released.kept }, 'an interrupted start left its workspace on the host')
  }

  close(): Promise<void> {
    return this.ssh.close()
  }
}
