import type { Settings } from '../config/keys.js'
import type { HookIntent } from '../sessions/reconcile.js'
import type { RemotePlace, SessionRecord } from '../sessions/record.js'
import type { Endpoint } from './endpoint.js'
import type { Release, Released } from './ssh-links.js'

/** What starting a session's agent server needs besides the record. */
export interface StartPlan {
  origin: string
  branch: string
  base?: string
  /** A restore: the branch must be on origin already. */
  restore: boolean
  settings: Settings
  /** The step's journaled intent, which the provider keeps up to date (what it reached, to undo). */
  intent: HookIntent
}

/**
 * One way for a hook session's agent server to come to be and to go: a backend is one
 * provider (`via` in the record names it). The rest (the session created there, prompts,
 * relays, the push before any teardown, delete_cmd, the journal) is the same for all.
 */
export interface RemoteProvider {
  /** Starts an agent server for the record: its endpoint, or why not (worded to show). */
  start(record: SessionRecord, plan: StartPlan): Promise<Endpoint | string>
  /**
   * After a daemon restart, how the home reaches the session again: true when its token
   * must wait until the provider reports the remote reachable (a reopened ssh forward).
   */
  reach(record: SessionRecord): boolean
  /** What svc itself made for the session goes, its work put on origin first: before delete_cmd. */
  stop(record: SessionRecord, how: Omit<Release, 'branch'>): Promise<Released>
  /** Whether the repository's delete_cmd takes the rest of its remote away after stop (launch_cmd's and provision_cmd's remotes). */
  readonly scripted: boolean
  /** The host the session runs on, as rows and messages name it. */
  describe(place: RemotePlace): string
  /** At start: what an interrupted create or restore reached (its intent says) is released. */
  undo?(intent: HookIntent): Promise<void>
  /** At start: what the provider keeps per session and no session or pending intent names goes. */
  sweep?(named: ReadonlySet<string>): Promise<void>
  /** The daemon stops. */
  close?(): Promise<void>
}

export type Providers = Record<RemotePlace['via'], RemoteProvider>

/** launch_cmd's and provision_cmd's arguments for a start: --name, --title, --repo, --branch, --base, --restore. */
export function scriptArgs(record: SessionRecord, { origin, branch, base, restore }: StartPlan): string[] {
  const { slug } = record.remote as RemotePlace
  return ['--name', slug, '--title', record.title, '--repo', origin, '--branch', branch, ...(base ? ['--base', base] : []), ...(restore ? ['--restore'] : [])]
}
