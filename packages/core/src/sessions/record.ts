import type { Static } from 'typebox'
import {
  CREATABLE_TAB_KINDS,
  Liveness,
  Status,
  TAB_KIND_NAMES,
  TabKind,
  livenessName,
  statusName,
  tabKindName,
  type DeliveryStatus,
  type IdleReason,
  type LifecycleAction,
  type HandoffEntry as HandoffEntryWire,
  type Session,
} from '@svc/protocol'

export type SessionWire = Static<typeof Session>
export type HandoffEntry = Static<typeof HandoffEntryWire>

export interface TabRecord {
  id: string
  kind: number
  name: string
  /** The tmux session the tab runs in (agent, shell and process tabs); kept across renames. */
  tmux_name?: string
  command?: string
  url?: string
  /** Agent tab only: the session's handoffs, oldest first. */
  handoffs?: HandoffEntry[]
}

/** A session as stored and held in memory; the string twins are never stored. */
export interface SessionRecord {
  id: string
  title: string
  repo_id: string
  repo_path: string
  path: string
  branch: string
  /** The daemon created the branch, so killing the session deletes it. */
  branch_created: boolean
  program: string
  account: string
  backend: string
  in_place: boolean
  /** The commit the session started from; absent on records older than the field. */
  base_sha?: string
  created_at: string
  updated_at?: string
  status: number
  liveness?: number
  /** Index 0 is the agent tab. */
  tabs: TabRecord[]
  last_pane_churn_at?: string
  last_prompt_attempt_at?: string
  last_prompt_delivery_status?: DeliveryStatus
  /** Why the last prompt was not delivered, when the daemon knows. */
  last_prompt_failure?: string
  /** The agent profile its running agent is read with (agents/profiles.ts), set at each spawn; none: program-agnostic. */
  profile?: string
  /** The start-up gate the agent shows and the daemon leaves to the user (agent_gates ask, or answered three times). */
  agent_asks?: string
  lost_restore_failure?: { attempts: number; error: string }
  archived_path?: string
  /** Prompts waiting for a terminal client to detach (DeliverPrompt defer_while_attached). */
  pending_prompts?: string[]
  /** The first prompt a person or task gave: a handoff's goal when it names none. */
  first_prompt?: string
  /** A handoff's mission brief not known to have arrived; `attempted_at` once it was pasted. */
  mission?: { text: string; attempted_at?: string }
  /** The project's root agent session (root_agents). */
  root?: boolean
  /** A root session whose agent is not root_agent: the agent it is recreated under, and the notice. */
  recreate?: { program: string; notice: string }
  /** A hook session: where it runs. Its token is kept apart, in remote-tokens/<id>. */
  remote?: RemotePlace
}

/** How messages name a remote session: by its backend for svc's own (docker, ssh), else a hook session. */
export function remoteNoun(place: { via?: RemotePlace['via'] } | undefined): string {
  return place?.via === 'docker' || place?.via === 'ssh' ? `${place.via} session` : 'hook session'
}

/** Where a hook session runs, and what the home last learnt of it. */
export interface RemotePlace {
  /** The agent server's base URL. */
  endpoint: string
  /** The session's id on the agent server. */
  remote_id: string
  /** `--name` of launch_cmd and delete_cmd. */
  slug: string
  via: 'launch' | 'provision' | 'docker' | 'ssh'
  /** Docker sessions: the container svc made, and the agent server's port published on 127.0.0.1. */
  docker?: DockerPlace
  /** An ssh session's host: its name in ssh_hosts, kept across archive and restore. */
  ssh_host?: string
  /** Provisioned sessions: the host reached over ssh, and the agent server's port there (the endpoint is a local forward to it). */
  ssh?: SshPlace
  /** The remote row's idle reason, as last seen. */
  idle_reason?: IdleReason
  /** The remote stopped answering; the record holds its last-known state. */
  unreachable?: boolean
  /** Archived: what was pushed before the remote was torn down (its endpoint and remote_id are then empty). */
  archived?: ArchivedPush
  /**
   * Why the host keeps the workspace: its work could not be put on origin when the
   * session was torn down. The session is lost (no agent server, no token) until it is
   * restored, or killed with discard.
   */
  kept?: string
}

/** What the archive of a hook session pushed to origin from its remote. */
export interface ArchivedPush {
  /** The origin URL the remote pushed to. */
  origin: string
  head: string
  /** The snapshot commit of uncommitted work, when there was some. */
  snapshot?: string
}

/** The host provision_cmd made (or an ssh session's host of ssh_hosts), as ssh reaches it. */
export interface SshPlace {
  /** An ssh session's: the ssh_hosts name of its host, as rows show it. */
  name?: string
  host: string
  port?: number
  user?: string
  /** The agent server's port on the host's loopback. */
  remote_port: number
}

/** A docker session's container. */
export interface DockerPlace {
  /** Its name, `svc-<session id>`: journaled before `docker run`, so an interrupted create finds it. */
  container: string
  /** The agent server's port on the engine's 127.0.0.1, published from the container. */
  port: number
  /** An engine on another machine (docker.host ssh://): that machine as ssh reaches it, `remote_port` the published port its forward reaches. */
  engine?: SshPlace
  /** An engine on another machine reached over tcp://: the endpoint is a listener here whose connections go through docker exec. */
  piped?: boolean
}

/** The host a hook session's row names: `docker` for a container, the ssh host, or the endpoint's. */
function remoteHostOf(place: RemotePlace | undefined): string | undefined {
  if (place?.docker) return 'docker'
  return place?.ssh_host ?? place?.ssh?.host ?? (place?.endpoint ? new URL(place.endpoint).hostname : undefined)
}

/** Go's zero time and anything before it: what an unset timestamp looks like once stored. */
const ZERO_TIME = Date.parse('0001-01-01T00:00:00Z')

/** Whether a stored timestamp holds a real time; missing, `""`, `0` and the zero time do not. */
function isSetTime(value: unknown): value is string {
  return typeof value === 'string' && Date.parse(value) > ZERO_TIME
}

/**
 * A record as read from disk, made whole: a missing or zero `updated_at` falls back to
 * `created_at`, and the removed `pr_info` is dropped so it is never written back.
 */
export function fromStored(stored: SessionRecord & { pr_info?: unknown }): SessionRecord {
  delete stored.pr_info
  if (!isSetTime(stored.updated_at)) stored.updated_at = stored.created_at
  return stored
}

/**
 * The agent's runtime was replaced (restore, restore-archived, a respawn at start,
 * automatic recovery): what was observed of the old pane and what was typed into it no
 * longer holds, so no idle reason may rest on it, and a failed recovery is over.
 */
export function runtimeReplaced(record: SessionRecord): void {
  delete record.last_pane_churn_at
  delete record.last_prompt_attempt_at
  delete record.last_prompt_delivery_status
  delete record.last_prompt_failure
  delete record.agent_asks
  delete record.lost_restore_failure
}

/** The lifecycle words, each one (status, liveness) pair. */
export const STATES = {
  running: { status: Status.running, liveness: Liveness.running },
  ready: { status: Status.ready, liveness: Liveness.ready },
  'limit-reached': { status: Status.ready, liveness: Liveness['limit-reached'] },
  lost: { status: Status.lost, liveness: Liveness.lost },
  dead: { status: Status.dead, liveness: Liveness.dead },
  archived: { status: Status.archived, liveness: Liveness.archived },
  loading: { status: Status.loading, liveness: Liveness.unset },
  deleting: { status: Status.deleting, liveness: Liveness.unset },
} as const

export type State = keyof typeof STATES

export function stateOf(record: Pick<SessionRecord, 'status' | 'liveness'>): State | undefined {
  const liveness = livenessName(record)
  if (liveness !== '') return liveness
  return record.status === Status.loading ? 'loading' : record.status === Status.deleting ? 'deleting' : undefined
}

/** Sets both lifecycle integers; true when that changed anything. */
export function setState(record: SessionRecord, state: State): boolean {
  const { status, liveness } = STATES[state]
  const changed = record.status !== status || (record.liveness ?? 0) !== liveness
  record.status = status
  if (liveness === Liveness.unset) delete record.liveness
  else record.liveness = liveness
  return changed
}

/** States in which the agent is expected to be running in tmux. */
export function isLive(record: SessionRecord): boolean {
  const state = stateOf(record)
  return state === 'running' || state === 'ready' || state === 'limit-reached'
}

/** Every named kind, `allowed` when CreateTab creates it by name (rule 7: not agent, not process). */
const TAB_KINDS = TAB_KIND_NAMES.map((kind) => ({ kind, allowed: (CREATABLE_TAB_KINDS as readonly string[]).includes(kind) }))

/** A hook session's tabs: besides its agent, only https web tabs (CreateTab checks the url). */
const HOOK_TAB_KINDS = TAB_KIND_NAMES.map((kind) => ({ kind, allowed: kind === 'web' }))

/** Kept for older clients: the one lifecycle move a session offers now. */
function lifecycleActionOf(record: SessionRecord): LifecycleAction | undefined {
  const state = stateOf(record)
  if (state === 'archived' || state === 'lost' || state === 'dead') return 'restore'
  return isLive(record) ? 'archive' : undefined
}

// Every object below is built in one fixed shape: absent fields are `undefined`, which
// JSON omits. Conditional spreads cost far more when a Snapshot encodes a whole fleet.

function encodeTab(tab: TabRecord, webProxied: (url: string) => boolean): SessionWire['tabs'][number] {
  return {
    id: tab.id,
    kind: tab.kind,
    kind_name: tabKindName(tab.kind),
    name: tab.name,
    tmux_name: tab.tmux_name,
    url: tab.url,
    command: tab.command,
    handoffs: tab.handoffs,
    // A web-tab field only: editor tabs carry a url too.
    web_proxied: tab.kind === TabKind.web && tab.url !== undefined ? webProxied(tab.url) : undefined,
  }
}

/** What an archived hook session's archive pushed: `<origin URL>#<branch>`. */
export function archivedRef(record: SessionRecord): string | undefined {
  const pushed = record.remote?.archived
  return pushed ? `${pushed.origin}#${record.branch}` : undefined
}

/**
 * Where a hook session's workspace is, `<host>:<path there>`, while one is: on a remote
 * that runs, or kept on its host. None for a local session or an archived one.
 */
export function remotePathOf(record: SessionRecord): string | undefined {
  const place = record.remote
  // A container's, as docker cp names it: <container>:<path>.
  const host = place?.docker?.container ?? remoteHostOf(place)
  return host && record.path && (place?.endpoint || place?.kept) ? `${host}:${record.path}` : undefined
}

/** The session object on the wire: stored fields plus the twins the encoder derives. */
export function encodeSession(
  record: SessionRecord,
  bootId: string,
  idleReason: IdleReason | undefined,
  webProxied: (url: string) => boolean,
): SessionWire {
  return {
    id: record.id,
    title: record.title,
    repo_id: record.repo_id,
    repo_path: record.repo_path,
    path: record.path,
    branch: record.branch,
    program: record.program,
    account: record.account,
    backend: record.backend,
    in_place: record.in_place,
    created_at: record.created_at,
    updated_at: record.updated_at || record.created_at,
    status: record.status,
    status_name: statusName(record.status),
    liveness: record.liveness || undefined,
    liveness_name: livenessName(record),
    tabs: record.tabs.map((tab) => encodeTab(tab, webProxied)),
    tab_kinds: record.remote ? HOOK_TAB_KINDS : TAB_KINDS,
    idle_reason: idleReason,
    lost_restore_failure: record.lost_restore_failure,
    last_pane_churn_at: record.last_pane_churn_at,
    last_prompt_attempt_at: record.last_prompt_attempt_at,
    last_prompt_delivery_status: record.last_prompt_delivery_status,
    last_prompt_failure: record.last_prompt_failure,
    agent_asks: record.agent_asks,
    archived_path: record.archived_path,
    archived_ref: archivedRef(record),
    pending_prompts: record.pending_prompts?.length || undefined,
    mission_pending: record.mission ? true : undefined,
    recreate_notice: record.recreate?.notice,
    boot_id: bootId,
    worktree: {
      repo_path: record.repo_path,
      path: record.archived_path ?? record.path,
      branch: record.branch,
      base_sha: record.base_sha ?? '',
    },
    lifecycle_action: lifecycleActionOf(record),
    // A kill already under way (deleting) is the only one that cannot be asked for again.
    can_kill: stateOf(record) !== 'deleting',
    // HandoffSession takes any live session, a running one included.
    can_handoff: isLive(record) && !record.remote,
    is_root: record.root === true,
    remote_host: remoteHostOf(record.remote),
    remote_unreachable: record.remote?.unreachable || undefined,
    remote_path: remotePathOf(record),
  }
}
