import { DaemonError, quote } from '@svc/protocol'
import type { Settings } from '../config/keys.js'
import { Refused } from '../errors.js'
import { remoteNoun, remotePathOf, stateOf, type ArchivedPush, type SessionRecord } from '../sessions/record.js'
import { committed } from '../sessions/table.js'
import { isUnreachable, redact, remoteClient } from './endpoint.js'
import type { HookOptions } from './hook-options.js'
import { placeOf, type HookRemotes } from './hook-remotes.js'
import type { HookScripts } from './hook-scripts.js'
import type { Providers } from './provider.js'
import { withoutCredentials } from './origin-url.js'
import type { HookIntent } from '../sessions/reconcile.js'

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

/**
 * How hook sessions' remotes go (kill, archive, the old remote of a restore): once their
 * work is on origin, never before.
 */
export class HookTeardown {
  constructor(
    private readonly options: HookOptions,
    private readonly remotes: HookRemotes,
    private readonly scripts: HookScripts,
    private readonly providers: Providers,
  ) {}

  /** The remote's snapshot and push of the session's branch, failures said (the token never in them). */
  private async push(record: SessionRecord, unsavedOnly: boolean): Promise<ArchivedPush> {
    const { token } = this.remotes.clientOf(record)
    const { endpoint } = placeOf(record)
    try {
      const { origin, head, snapshot } = await remoteClient({ url: endpoint, token }, PUSH_TIMEOUT_MS).agentServer.push(record.branch, unsavedOnly)
      return { origin: withoutCredentials(origin), head, ...(snapshot ? { snapshot } : {}) }
    } catch (error) {
      const why = redact((error as Error).message, token)
      const host = this.remotes.hostOf(record)
      if (isUnreachable(error)) throw new PushFailed(`its remote at ${host} does not answer (${why})`, true)
      throw new PushFailed(`the remote at ${host} could not push: ${why}`, false)
    }
  }

  /**
   * The agent stopped on its remote (archived there, so that a failed push can start it
   * again), then the workspace pushed by the agent server: what it pushed, or undefined
   * when the agent server does not answer. A push the remote could not make starts the
   * agent again and refuses, nothing torn down.
   */
  private async stopAndPush(record: SessionRecord, { end }: Retire): Promise<ArchivedPush | undefined> {
    if (!this.remotes.hasToken(record.id)) return undefined
    const { remote_id: id } = placeOf(record)
    let stopped = true
    try {
      await this.remotes.call(record, 'ArchiveSession', { id })
    } catch (error) {
      if (isUnreachable(error)) return undefined
      // One its remote has lost, or stopped already, is only pushed.
      if (!(error instanceof DaemonError && /no session with id|already archived/.test(error.message))) {
        throw retireRefusal(record, end, `its remote would not stop the agent (${(error as Error).message}); it still runs there and nothing was torn down`)
      }
      stopped = false
    }
    try {
      // A kill keeps no archive: a session that did no work leaves no branch on origin.
      return await this.push(record, end === 'removed')
    } catch (error) {
      if (error instanceof PushFailed && error.unreachable) return undefined
      const restarted = stopped
        ? await this.remotes.call(record, 'RestoreArchived', { id }).then(
            () => 'its agent was started there again',
            (restart: Error) => `its agent could not be started there again (${restart.message}): restore it`,
          )
        : 'its agent was not running'
      throw retireRefusal(record, end, `${(error as Error).message}; ${restarted}, its work kept there and nothing torn down`)
    }
  }

  /**
   * The remote goes once its work is on origin (the agent server's push; for a
   * provisioned host whose agent server does not answer, plain git there over ssh): the
   * remote session killed, the host released, delete_cmd run, the token removed. The
   * record then ends as `how.end` says. Work that cannot be put on origin is not deleted:
   * the host keeps the workspace and the session is lost, its place named, until a kill
   * with `discard`. A remote nobody can reach is torn down only with `force_reap` (its
   * host is gone). An archive needs its agent server to answer.
   */
  async retire(record: SessionRecord, how: Retire): Promise<ArchivedPush | undefined> {
    const { end, forceReap, discard } = how
    const place = placeOf(record)
    const intent = teardownIntent(record, how)
    // Before the agent is stopped: a daemon that dies from here on finishes the step at its next start.
    await this.options.creations.begin(intent)
    try {
      const pushed = discard ? undefined : await this.stopAndPush(record, how)
      if (!pushed && !discard && (end === 'archived' || (!place.ssh && !forceReap))) {
        const host = this.remotes.hostOf(record)
        const why = end === 'archived'
          ? `its remote at ${host} does not answer, so it cannot stop its agent and push its work; it still runs there and nothing was torn down`
          : `its remote at ${host} does not answer, so its work cannot be pushed before its remote is ${end === 'removed' ? 'removed' : 'replaced'}; nothing was torn down: retry once it answers, pass force_reap if its host is gone (what it did not push is then lost), or discard it`
        throw retireRefusal(record, end, why)
      }
      if (pushed && intent.hook.teardown) {
        // Pushed: a daemon that dies from here on tears down without asking the remote again.
        intent.hook.teardown.pushed = pushed
        await this.options.creations.begin(intent)
      }
      return await this.tearDown(record, pushed, how)
    } finally {
      await this.options.creations.end(record.id)
    }
  }

  /**
   * At start: a teardown the daemon died in, finished from its intent: torn down at once
   * when its push was made, else done again from the start (the agent stopped, the work
   * pushed). One that ended before the daemon died is left be.
   */
  async finish(intent: HookIntent): Promise<undefined> {
    const { table, resolver, log } = this.options
    const record = table.records.get(intent.id)
    const step = intent.hook.teardown
    if (!step || !record || stateOf(record) === 'archived') return undefined
    // Refused while the config is not trusted: the intent stays for the next start.
    const settings = await resolver.runnable(record.repo_path)
    const how = { settings, end: step.end, forceReap: step.force_reap, discard: step.discard }
    await (step.pushed ? this.tearDown(record, step.pushed, how) : this.retire(record, how)).catch((error: Error) => {
      log.warn({ err: error, session: record.title }, 'an interrupted teardown of a hook session ended short')
    })
    return undefined
  }

  /** The record of a session whose remote is gone, removed (a kill's last step). */
  async removeRecord(record: SessionRecord): Promise<void> {
    const { table, tokens } = this.options
    await tokens.remove(record.id)
    this.remotes.drop(record.id)
    await table.remove(record)
    table.emit(record.id, 'removed')
  }

  /** The teardown proper, once the work is on origin (or need not be): see retire. */
  private async tearDown(record: SessionRecord, pushed: ArchivedPush | undefined, { settings, end, forceReap, discard }: Retire): Promise<ArchivedPush | undefined> {
    const { table, tokens, log } = this.options
    const place = placeOf(record)
    const before = stateOf(record)
    table.transition(record, 'deleting')
    if (place.remote_id) {
      await this.remotes.call(record, 'KillSession', { id: place.remote_id }).catch((error: Error) => {
        log.warn({ session: record.title, err: error }, 'could not kill the remote session; delete_cmd tears its remote down')
      })
    }
    this.remotes.unwatch(record.id)
    const released = await this.providers[place.via].stop(record, { discard, force: forceReap })
    if ('unreachable' in released && !forceReap) {
      table.transition(record, before ?? 'lost')
      throw retireRefusal(record, end, `${released.unreachable}, so its work cannot be put on origin; nothing was torn down: retry once it answers, pass force_reap if the host is gone (what it did not push is then lost), or discard it`)
    }
    if ('kept' in released) await this.keep(record, released.kept, end)
    const failure = this.providers[place.via].scripted ? await this.scripts.runDelete(settings, record.repo_path, place.slug) : undefined
    await tokens.remove(record.id)
    this.remotes.drop(record.id)
    place.endpoint = ''
    place.remote_id = ''
    delete place.unreachable
    delete place.idle_reason
    delete place.kept
    if (end === 'removed') {
      if (failure) {
        table.transition(record, 'dead')
        await table.save(record)
        throw committed(`the remote session of ${quote(record.title)} was stopped and the session marked dead`, new Error(`${failure}; kill it again with force_reap to retry`))
      }
      await this.removeRecord(record)
      return pushed
    }
    if (pushed) place.archived = pushed
    table.transition(record, 'archived')
    await table.save(record)
    if (failure) {
      throw committed(
        `hook session ${quote(record.title)} was ${end === 'archived' ? 'archived' : 'torn down'}`,
        new Error(`${failure}; its remote may still run: run delete_cmd --name ${place.slug} once it can`),
      )
    }
    return pushed
  }

  /**
   * The host keeps the workspace, whose work could not reach origin: its agent server is
   * stopped (by the stop script) and its token goes, the host and path stay named in the
   * record, now lost; only a kill with `discard` removes it. Always throws, saying so.
   */
  private async keep(record: SessionRecord, why: string, end: Retire['end']): Promise<never> {
    const { table, tokens } = this.options
    const place = placeOf(record)
    await tokens.remove(record.id)
    this.remotes.drop(record.id)
    place.endpoint = ''
    place.remote_id = ''
    place.kept = why
    delete place.unreachable
    table.transition(record, 'lost')
    await table.save(record)
    const where = remotePathOf(record) ?? `the host of ${quote(record.title)}`
    throw committed(
      `its agent was stopped`,
      retireRefusal(record, end, `${why}; its work stays at ${where}, the session lost: restore it, or kill it with discard to delete that work`),
    )
  }
}

/** How a remote's teardown ends for its record. */
export interface Retire {
  settings: Settings
  /** The record kept as archived; gone (a kill); or replaced by a relaunch (a restore). */
  end: 'archived' | 'removed' | 'replaced'
  /** The host is gone: a remote nobody reaches is torn down with what it did not push. */
  forceReap: boolean
  /** Remove the workspace whatever it holds (`kill --discard`). */
  discard: boolean
}

/** What finishing a teardown after a crash needs, journaled before it starts. */
function teardownIntent(record: SessionRecord, { end, forceReap, discard }: Retire): HookIntent {
  const teardown = { end, discard, force_reap: forceReap }
  return { id: record.id, title: record.title, repo_path: record.repo_path, hook: { slug: placeOf(record).slug, branch: record.branch, teardown } }
}

function retireRefusal(record: SessionRecord, end: Retire['end'], why: string): Refused {
  const verb = end === 'archived' ? 'archive' : end === 'removed' ? 'kill' : 'restore'
  return new Refused(`could not ${verb} ${remoteNoun(record.remote)} ${quote(record.title)}: ${why}`)
}
