import Type from 'typebox'
import { Empty, Ok, Request, Timestamp } from './common.js'

export const TASK_ACTORS = ['cli', 'tui', 'api', 'daemon-upgrade'] as const
export type TaskActor = (typeof TASK_ACTORS)[number]

export const TASK_ARMING = ['armed', 'watching', 'disabled', 'unschedulable'] as const

export const AuditEntry = Type.Object({ at: Timestamp, actor: Type.String(), op: Type.String() })

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

/** Scheduler-owned and read-time fields, accepted on AddTask but never trusted. */
const owned = {
  id: Type.String(),
  repo_id: Type.String(),
  created_at: Timestamp,
  last_run_at: Timestamp,
  last_run_status: Type.String(),
  dropped_events: Type.Integer(),
  audit: Type.Array(AuditEntry),
  overdue: Type.Boolean(),
  missed_occurrences: Type.Integer(),
  missed_occurrences_capped: Type.Boolean(),
  unschedulable: Type.Boolean(),
  unschedulable_reason: Type.String(),
  unassessable: Type.Boolean(),
  next_run_at: Timestamp,
  arming: Type.String(),
  ordinal: Type.Integer(),
  store_generation: Type.Integer(),
}

export const Task = Type.Object({
  ...Request(editable).properties,
  ...Request(owned).properties,
  id: Type.String(),
  enabled: Type.Boolean(),
})

export const Expect = Request({ enforce: Type.Boolean(), project_path: Type.String() })
const ActorField = { actor: Type.String() }

export const ListOnCompleteRequest = Empty
export const ListOnCompleteResponse = Type.Object({
  values: Type.Array(Type.Object({ value: Type.String(), hint: Type.String() })),
})

export const ListTasksRequest = Empty
export const ListTasksResponse = Type.Object({ tasks: Type.Array(Task) })

export const AddTaskRequest = Request({ task: Request({ ...editable, ...owned }), ...ActorField })
export const AddTaskResponse = Type.Object({ ok: Type.Literal(true), task: Type.Optional(Task) })

export const UpdateTaskRequest = Request({
  id: Type.String(),
  update: Request(editable),
  expect: Expect,
  ...ActorField,
})
export const UpdateTaskResponse = Type.Object({ ok: Type.Literal(true), task: Task })

const ById = Request({ id: Type.String(), expect: Expect })
export const RemoveTaskRequest = ById
export const RemoveTaskResponse = Ok
export const RestartTaskRequest = ById
export const RestartTaskResponse = Ok
export const TriggerTaskRequest = ById
export const TriggerTaskResponse = Ok
