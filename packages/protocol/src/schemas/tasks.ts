import Type from 'typebox'
import { Closed, Empty, Ok, Request, Timestamp } from './common.js'
import { OnCompleteWord, TaskArmingWord } from './vocab.js'

/** Closed, because AddTask accepts a task object read back from ListTasks, audit included (and ignored). */
export const AuditEntry = Type.Object({ at: Timestamp, actor: Type.String(), op: Type.String() }, { additionalProperties: false })

/** The fields a client may set; everything else is owned by the daemon. */
const editable = {
  name: Type.String(),
  prompt: Type.String(),
  cron_expr: Type.String(),
  watch_cmd: Type.String(),
  target_session: Type.String(),
  max_concurrent_runs: Type.Integer(),
  on_complete: Type.String(),
  project_path: Type.String(),
  program: Type.String(),
  enabled: Type.Boolean(),
}

/** Stored fields the daemon owns: the id once minted, repository identity, run results, the audit trail. */
const stored = {
  id: Type.String(),
  repo_id: Type.String(),
  created_at: Timestamp,
  last_run_at: Timestamp,
  last_run_status: Type.String(),
  dropped_events: Type.Integer(),
  audit: Type.Array(AuditEntry),
}

/** Derived on every read from the store and the live scheduler; never stored. */
const derived = {
  overdue: Type.Boolean(),
  missed_occurrences: Type.Integer(),
  missed_occurrences_capped: Type.Boolean(),
  unschedulable: Type.Boolean(),
  unschedulable_reason: Type.String(),
  unassessable: Type.Boolean(),
  next_run_at: Timestamp,
  arming: Type.String(),
  ordinal: Type.Integer({ description: 'position in the store, from 0' }),
  store_generation: Type.Integer({ description: 'bumped on every committed change to the task store' }),
}

/** A task as the daemon returns it: every stored field, plus schedule health derived at read time. */
export const Task = Closed({
  ...editable,
  ...stored,
  ...derived,
  // Present only when they have a value (a hand-edited record may lack created_at).
  created_at: Type.Optional(Timestamp),
  last_run_at: Type.Optional(Timestamp),
  last_run_status: Type.Optional(Type.String()),
  unschedulable_reason: Type.Optional(Type.String()),
  next_run_at: Type.Optional(Timestamp),
  on_complete: OnCompleteWord,
  arming: TaskArmingWord,
})

export const Expect = Request({ enforce: Type.Boolean(), project_path: Type.String() })
const ActorField = { actor: Type.String() }

export const ListOnCompleteRequest = Empty
export const ListOnCompleteResponse = Closed({
  values: Type.Array(Closed({ value: OnCompleteWord, hint: Type.String() })),
})

export const ListTasksRequest = Empty
export const ListTasksResponse = Closed({ tasks: Type.Array(Task) })

/** Every task field, each optional: a full task object as a client may send it back. */
export const TaskInput = Request({ ...editable, ...stored, ...derived })

/** `task` is a full task object; the daemon re-validates it and ignores what it owns, except `id`. */
export const AddTaskRequest = Request({ task: TaskInput, ...ActorField })
/** `task` (additive to the document's `{ok: true}`) carries the id the daemon minted. */
export const AddTaskResponse = Closed({ ok: Type.Literal(true), task: Task })

export const UpdateTaskRequest = Request({
  id: Type.String(),
  update: Request(editable),
  expect: Expect,
  ...ActorField,
})
export const UpdateTaskResponse = Closed({ ok: Type.Literal(true), task: Task })

const ById = Request({ id: Type.String(), expect: Expect })
export const RemoveTaskRequest = ById
export const RemoveTaskResponse = Ok
export const RestartTaskRequest = ById
export const RestartTaskResponse = Ok
export const TriggerTaskRequest = ById
export const TriggerTaskResponse = Ok
