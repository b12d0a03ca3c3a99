import Type from 'typebox'
import { Empty, Ok, Request, SessionRef, Timestamp } from './common.js'

export const Tab = Type.Object({
  kind: Type.Integer(),
  kind_name: Type.String(),
  id: Type.Optional(Type.String()),
  name: Type.String(),
  web_proxied: Type.Optional(Type.Boolean()),
  tmux_name: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  command: Type.Optional(Type.String()),
})

export const Session = Type.Object({
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
  status_name: Type.String(),
  liveness: Type.Optional(Type.Integer()),
  liveness_name: Type.String(),
  tabs: Type.Array(Tab),
  tab_kinds: Type.Array(Type.Object({ kind: Type.String() })),
  idle_reason: Type.Optional(Type.String()),
  lost_restore_failure: Type.Optional(Type.Object({ attempts: Type.Integer(), error: Type.String() })),
  last_pane_churn_at: Type.Optional(Timestamp),
  last_prompt_attempt_at: Type.Optional(Timestamp),
  last_prompt_delivery_status: Type.Optional(Type.String()),
  archived_path: Type.Optional(Type.String()),
  /** Prompts waiting for a terminal client to detach. */
  pending_prompts: Type.Optional(Type.Integer()),
  boot_id: Type.String(),
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
})
export const CreateSessionResponse = Type.Object({ instance: Session })

export const ListBackendsRequest = Request({ repo_path: Type.String() })
export const ListBackendsResponse = Type.Object({
  backends: Type.Array(
    Type.Object({ name: Type.String(), status: Type.String(), reason: Type.Optional(Type.String()) }),
  ),
  default: Type.String(),
})

export const ListProgramsRequest = Request({ repo_path: Type.String() })
export const ListProgramsResponse = Type.Object({
  programs: Type.Array(Type.Object({ name: Type.String(), available: Type.Boolean() })),
  default: Type.String(),
})

export const SuggestSessionNameRequest = Empty
export const SuggestSessionNameResponse = Type.Object({ name: Type.String() })

export const SnapshotRequest = Request({
  repo_id: Type.String(),
  live: Type.Boolean(),
  statuses: Type.Array(Type.String()),
  created_after: Type.String(),
  limit: Type.Integer(),
})
export const SnapshotResponse = Type.Object({ instances: Type.Array(Session), boot_id: Type.String() })

export const KillSessionRequest = Request(SessionRef)
export const KillSessionResponse = Ok

export const ArchiveSessionRequest = Request(SessionRef)
export const ArchiveSessionResponse = Type.Object({ ok: Type.Literal(true), archived_path: Type.String() })

export const RestoreArchivedRequest = Request(SessionRef)
export const RestoreArchivedResponse = Type.Object({ ok: Type.Literal(true), worktree_path: Type.String() })

export const RestoreSessionRequest = Request({
  ...SessionRef,
  expected_daemon_boot_id: Type.String(),
  force_reap: Type.Boolean(),
})
export const RestoreSessionResponse = Ok

export const SendPromptRequest = Request({ ...SessionRef, prompt: Type.String() })
export const SendPromptResponse = Type.Object({ ok: Type.Literal(true), status: Type.String() })

export const ResumeFromLimitRequest = Request(SessionRef)
export const ResumeFromLimitResponse = Ok

export const HandoffSessionRequest = Request({
  ...SessionRef,
  to: Type.String(),
  account: Type.String(),
  brief: Type.String(),
})
export const HandoffSessionResponse = Ok

export const DeliverPromptRequest = Request({
  title: Type.String(),
  repo_path: Type.String(),
  program: Type.String(),
  prompt: Type.String(),
  defer_while_attached: Type.Boolean(),
})
export const DeliverPromptResponse = Type.Object({
  status: Type.String(),
  /** The delivery check's verdict when the prompt was pasted now. */
  delivery: Type.Optional(Type.String()),
  /** The prompt waits for the attached terminal client to detach. */
  deferred: Type.Optional(Type.Boolean()),
})

/** Internal envelope routes, served but not in the catalog. */
export const PreviewRequest = Request({ ...SessionRef, tab_id: Type.String() })
export const PreviewResponse = Type.Object({ url: Type.String() })
export const StatusPollRequest = Empty
export const StatusPollResponse = Ok
