import type { Static } from 'typebox'
import type { AuditEntry, OnCompleteValue, Task } from '@svc/protocol'

export type TaskWire = Static<typeof Task>
export type AuditEntryT = Static<typeof AuditEntry>

/** What `on_complete` may hold once canonicalized (`keep` is stored as ""). */
export const ON_COMPLETE = [
  { value: '', hint: 'keep the session (default)' },
  { value: 'archive', hint: 'archive the session: restorable, keeps the worktree' },
  { value: 'kill', hint: 'delete the session and its branch' },
] as const satisfies ReadonlyArray<{ value: OnCompleteValue; hint: string }>
export type OnComplete = OnCompleteValue

/** A task as stored in tasks.json; schedule health, ordinal and generation are never stored. */
export interface TaskRecord {
  id: string
  name: string
  prompt: string
  cron_expr: string
  watch_cmd: string
  target_session: string
  /** 0 on tasks it does not apply to; a watch task without a target runs at least one. */
  max_concurrent_runs: number
  on_complete: OnComplete
  project_path: string
  repo_id: string
  program: string
  enabled: boolean
  created_at?: string
  last_run_at?: string
  last_run_status?: string
  dropped_events: number
  audit: AuditEntryT[]
}

/** A session a task spawned that has not settled yet: on_complete and max_concurrent_runs need it. */
export interface RunRecord {
  session_id: string
  title: string
  repo_id: string
  task_id: string
  started_at: string
}

/** The whole of tasks.json. */
export interface TaskDocument {
  store_generation: number
  tasks: TaskRecord[]
  runs: RunRecord[]
}

export const EMPTY_DOCUMENT: TaskDocument = { store_generation: 0, tasks: [], runs: [] }

/** What a stored field left out means; a stored task without `enabled` is off. */
export const TASK_DEFAULTS: TaskRecord = {
  id: '',
  name: '',
  prompt: '',
  cron_expr: '',
  watch_cmd: '',
  target_session: '',
  max_concurrent_runs: 0,
  on_complete: '',
  project_path: '',
  repo_id: '',
  program: '',
  enabled: false,
  dropped_events: 0,
  audit: [],
}

/** Every field a stored task may carry. */
export const STORED_FIELDS = [...Object.keys(TASK_DEFAULTS), 'created_at', 'last_run_at', 'last_run_status'] as Array<keyof TaskRecord>

/** The fields a client edits; UpdateTask patches only these. */
export const EDITABLE_FIELDS = [
  'name',
  'prompt',
  'cron_expr',
  'watch_cmd',
  'target_session',
  'max_concurrent_runs',
  'on_complete',
  'project_path',
  'program',
  'enabled',
] as const

export type TaskKind = 'cron' | 'watch' | 'none'

export function kindOf(task: Pick<TaskRecord, 'cron_expr' | 'watch_cmd'>): TaskKind {
  if (task.watch_cmd !== '') return 'watch'
  return task.cron_expr !== '' ? 'cron' : 'none'
}
