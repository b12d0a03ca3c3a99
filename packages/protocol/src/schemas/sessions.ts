import Type from 'typebox'
import { Closed, Empty, Ok, Request, SessionRef, Timestamp } from './common.js'
import {
  BackendStatusWord,
  DeliverPromptStatusWord,
  DeliveryStatusWord,
  IdleReasonWord,
  LifecycleActionWord,
  LivenessNameWord,
  StatusNameWord,
  TabKindNameWord,
  TabKindWord,
} from './vocab.js'

/** Who ran the session before and after one HandoffSession. */
export const AgentIdentity = Closed({ program: Type.String(), account: Type.String() })

/** One handoff, kept on the agent tab: the session's ledger of agents. */
export const HandoffEntry = Closed({
  from: AgentIdentity,
  to: AgentIdentity,
  at: Timestamp,
  /** The worktree's HEAD when the work changed hands. */
  head_sha: Type.String(),
  /** `usage-limit` when the previous agent was parked at its limit, else `handed-over`. */
  reason: Type.String(),
})

export const Tab = Closed({
  kind: Type.Integer(),
  kind_name: TabKindNameWord,
  id: Type.Optional(Type.String()),
  name: Type.String(),
  web_proxied: Type.Optional(Type.Boolean()),
  tmux_name: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  command: Type.Optional(Type.String()),
  /** Agent tab only: every handoff of the session, oldest first. */
  handoffs: Type.Optional(Type.Array(HandoffEntry)),
})

/** Kept for older clients: where the session's work lives, in one object. */
export const SessionWorktree = Closed({
  repo_path: Type.String(),
  /** Where the worktree is now: its archive directory while archived. */
  path: Type.String(),
  branch: Type.String(),
  /** The commit the session started from; `""` on records older than the field. */
  base_sha: Type.String(),
})

export const Session = Closed({
  id: Type.String(),
  title: Type.String(),
  repo_id: Type.String(),
  repo_path: Type.String(),
  path: Type.String(),
  branch: Type.String(),
  program: Type.String(),
  account: Type.String(),
  backend: Type.String(),
  in_place: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  status: Type.Integer(),
  status_name: StatusNameWord,
  liveness: Type.Optional(Type.Integer()),
  liveness_name: LivenessNameWord,
  tabs: Type.Array(Tab),
  /** `allowed`, kept for older clients: whether CreateTab creates this kind by name. */
  tab_kinds: Type.Array(Closed({ kind: TabKindWord, allowed: Type.Boolean() })),
  idle_reason: Type.Optional(IdleReasonWord),
  lost_restore_failure: Type.Optional(Closed({ attempts: Type.Integer(), error: Type.String() })),
  last_pane_churn_at: Type.Optional(Timestamp),
  last_prompt_attempt_at: Type.Optional(Timestamp),
  last_prompt_delivery_status: Type.Optional(DeliveryStatusWord),
  /** Why the last prompt was not delivered, when the daemon knows (its composer never showed, say). */
  last_prompt_failure: Type.Optional(Type.String()),
  /** What the agent asks before it goes on (a start-up gate such as folder trust), while it shows and is left to the user. */
  agent_asks: Type.Optional(Type.String()),
  archived_path: Type.Optional(Type.String()),
  /** An archived hook session: what its archive pushed, `<origin URL>#<branch>`. */
  archived_ref: Type.Optional(Type.String()),
  /** Prompts waiting for a terminal client to detach. */
  pending_prompts: Type.Optional(Type.Integer()),
  /** A handoff's mission brief that may not have arrived; ResumeFromLimit delivers it again. */
  mission_pending: Type.Optional(Type.Boolean()),
  /** Set at daemon start on a root session whose agent differs from root_agent; RestoreSession force_reap recreates it. */
  recreate_notice: Type.Optional(Type.String()),
  boot_id: Type.String(),
  // Kept for older clients (additive).
  worktree: SessionWorktree,
  /** `archive` for a live session, `restore` for an archived, lost or dead one; omitted while an operation holds it. */
  lifecycle_action: Type.Optional(LifecycleActionWord),
  can_kill: Type.Boolean(),
  /** Whether HandoffSession would take the session now: it is live (running, ready or at its usage limit). */
  can_handoff: Type.Boolean(),
  /** The project's root agent session (root_agents). */
  is_root: Type.Boolean(),
  /** Hook sessions: the host of the remote agent server the session runs on. */
  remote_host: Type.Optional(Type.String()),
  /** Hook sessions: the remote stopped answering; the row is its last-known state. */
  remote_unreachable: Type.Optional(Type.Boolean()),
  /**
   * Hook sessions: where the workspace is, `<host>:<path there>` (worktree.path names the
   * same path, on that host); while lost, the work its host kept because it could not be
   * put on origin.
   */
  remote_path: Type.Optional(Type.String()),
})

export const CreateSessionRequest = Request({
  title: Type.String(),
  title_base: Type.String(),
  repo_path: Type.String(),
  program: Type.String(),
  account: Type.String(),
  prompt: Type.String(),
  in_place: Type.Boolean(),
  force_remote: Type.Boolean(),
  backend: Type.String(),
  /** Backend `ssh`: the `ssh_hosts` entry to run on, instead of the repository's `ssh.host`. */
  host: Type.String(),
})
export const CreateSessionResponse = Closed({ instance: Session })

export const ListBackendsRequest = Request({ repo_path: Type.String() })
export const ListBackendsResponse = Closed({
  backends: Type.Array(
    Closed({
      name: Type.String(),
      status: BackendStatusWord,
      reason: Type.Optional(Type.String()),
      /** Kept for older clients: a name for people. */
      label: Type.String(),
      /** Backend `ssh`: the `ssh_hosts` names a create may pick (`host`), the repository's `ssh.host` first. */
      hosts: Type.Optional(Type.Array(Type.String())),
    }),
  ),
  default: Type.String(),
  /** Kept for older clients: the status of the default backend. */
  default_status: BackendStatusWord,
})

export const ListProgramsRequest = Request({ repo_path: Type.String() })
export const ListProgramsResponse = Closed({
  /** `profile`: the agent profile its screens are read with ("" for none: program-agnostic observation). */
  programs: Type.Array(Closed({ name: Type.String(), available: Type.Boolean(), profile: Type.String() })),
  default: Type.String(),
})

export const SuggestSessionNameRequest = Empty
export const SuggestSessionNameResponse = Closed({ name: Type.String() })

export const SnapshotRequest = Request({
  repo_id: Type.String(),
  live: Type.Boolean(),
  statuses: Type.Array(Type.String()),
  created_after: Type.String(),
  limit: Type.Integer(),
})
export const SnapshotResponse = Closed({ instances: Type.Array(Session), boot_id: Type.String() })

/**
 * Hook sessions: `force_reap` removes one whose remote nobody reaches (its host is gone;
 * what it did not push is lost); `discard` removes its workspace even when the work there
 * is not on origin.
 */
export const KillSessionRequest = Request({ ...SessionRef, force_reap: Type.Boolean(), discard: Type.Boolean() })
export const KillSessionResponse = Ok

export const ArchiveSessionRequest = Request(SessionRef)
export const ArchiveSessionResponse = Closed({
  ok: Type.Literal(true),
  /** Where the work went: the archive directory, or for a hook session (kept for older clients) its archived_ref. */
  archived_path: Type.String(),
  /** A hook session: what its archive pushed, `<origin URL>#<branch>`. */
  archived_ref: Type.Optional(Type.String()),
})

export const RestoreArchivedRequest = Request(SessionRef)
export const RestoreArchivedResponse = Closed({ ok: Type.Literal(true), worktree_path: Type.String() })

export const RestoreSessionRequest = Request({
  ...SessionRef,
  expected_daemon_boot_id: Type.String(),
  force_reap: Type.Boolean(),
})
export const RestoreSessionResponse = Ok

export const SendPromptRequest = Request({ ...SessionRef, prompt: Type.String() })
export const SendPromptResponse = Closed({
  ok: Type.Literal(true),
  status: DeliveryStatusWord,
  /** Why it was not delivered, when the daemon knows. */
  reason: Type.Optional(Type.String()),
})

export const ResumeFromLimitRequest = Request(SessionRef)
export const ResumeFromLimitResponse = Ok

export const HandoffSessionRequest = Request({
  ...SessionRef,
  to: Type.String(),
  account: Type.String(),
  brief: Type.String(),
})
export const HandoffSessionResponse = Closed({
  ok: Type.Literal(true),
  from: AgentIdentity,
  to: AgentIdentity,
  head_sha: Type.String(),
})

export const DeliverPromptRequest = Request({
  title: Type.String(),
  repo_path: Type.String(),
  program: Type.String(),
  prompt: Type.String(),
  defer_while_attached: Type.Boolean(),
})
export const DeliverPromptResponse = Closed({
  status: DeliverPromptStatusWord,
  /** The delivery check's verdict when the prompt was pasted now. */
  delivery: Type.Optional(DeliveryStatusWord),
  /** The prompt waits for the attached terminal client to detach. */
  deferred: Type.Optional(Type.Boolean()),
})
