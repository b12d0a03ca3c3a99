import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Static } from 'typebox'
import { expandHome, TASK_ACTORS, type Expect, type TaskActor, type UpdateTaskRequest, excerpt, quote } from '@svc/protocol'
import { InvalidRequest, Refused } from '../errors.js'
import { resolveRepository } from '../infra/git.js'
import { checkCron } from './cron.js'
import { EDITABLE_FIELDS, kindOf, ON_COMPLETE, type OnComplete, type TaskRecord } from './record.js'

export type TaskEdits = NonNullable<Static<typeof UpdateTaskRequest>['update']>
export type ExpectT = Static<typeof Expect>

export const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/
export const MAX_CONCURRENT_RUNS = 100

/** The editable fields present in `source`, with `keep` canonicalized to "". */
export function editsOf(source: TaskEdits): TaskEdits {
  const edits: TaskEdits = {}
  for (const field of EDITABLE_FIELDS) {
    if (source[field] !== undefined) (edits as Record<string, unknown>)[field] = source[field]
  }
  if (edits.on_complete === 'keep') edits.on_complete = ''
  return edits
}

/** An absolute path with `~` expanded: the form project_path is stored and compared in. */
export function projectPath(path: string): string {
  try {
    return resolve(expandHome(path))
  } catch (error) {
    throw new InvalidRequest(`project_path ${(error as Error).message}`)
  }
}

/** The stored form of project_path and the repository it belongs to; "" stays unbound. */
export async function resolveProject(path: string): Promise<{ project_path: string; repo_id: string }> {
  if (path === '') return { project_path: '', repo_id: '' }
  const absolute = projectPath(path)
  const info = await stat(absolute).catch(() => undefined)
  if (!info?.isDirectory()) throw new InvalidRequest(`project_path ${excerpt(absolute)} is not a directory`)
  const repo = await resolveRepository(absolute).catch((error: Error) => {
    throw new InvalidRequest(`project_path ${excerpt(absolute)}: ${error.message}`)
  })
  return { project_path: absolute, repo_id: repo.id }
}

export function actorOf(actor: string | undefined): TaskActor {
  if (actor === undefined) return 'api'
  if (!(TASK_ACTORS as readonly string[]).includes(actor)) {
    throw new InvalidRequest(`actor ${quote(actor)} is not one of ${TASK_ACTORS.join(', ')}`)
  }
  return actor as TaskActor
}

/**
 * The rules every stored task obeys, checked on the whole record after add or merge.
 * `named` is false for a task whose id the daemon just minted: messages then do not
 * name an id the caller never saw.
 */
export function checkTask(task: TaskRecord, named = true): void {
  const problem = (message: string) => new InvalidRequest(`${named ? `task ${task.id}` : 'task'}: ${message}`)
  if (!TASK_ID.test(task.id)) {
    throw new InvalidRequest(`task id ${quote(task.id)} is invalid: use 1 to 128 letters, digits, "_" or "-"`)
  }
  if (task.cron_expr !== '' && task.watch_cmd !== '') {
    throw problem('cron_expr and watch_cmd are both set; a task has exactly one trigger')
  }
  const kind = kindOf(task)
  if (task.cron_expr !== '') {
    const cron = checkCron(task.cron_expr, task.id)
    if (cron.kind === 'invalid') throw problem(cron.message)
  }
  if (task.enabled) {
    if (kind === 'none') throw problem('an enabled task needs a trigger: set cron_expr or watch_cmd')
    if (kind === 'cron' && task.prompt.trim() === '') throw problem('an enabled cron task needs a prompt')
    if (task.project_path === '') throw problem('an enabled task needs project_path (the repository it runs in)')
  }
  if (task.max_concurrent_runs !== 0) {
    if (kind !== 'watch' || task.target_session !== '') {
      throw problem('max_concurrent_runs applies only to watch tasks without target_session')
    }
    if (task.max_concurrent_runs < 1 || task.max_concurrent_runs > MAX_CONCURRENT_RUNS) {
      throw problem(`max_concurrent_runs must be from 1 to ${MAX_CONCURRENT_RUNS}`)
    }
  }
  if (!ON_COMPLETE.some((option) => option.value === task.on_complete)) {
    const values = ON_COMPLETE.map((option) => `"${option.value}"`).join(', ')
    throw problem(`on_complete ${quote(task.on_complete)} is not one of ${values} (or "keep", stored as "")`)
  }
  if (task.on_complete !== '' && task.target_session !== '') {
    throw problem('on_complete applies only to sessions the task spawns; a task with target_session must leave it empty')
  }
}

/** Applies `edits` to a copy of `task`; checkTask judges the result. */
export function merged(task: TaskRecord, edits: TaskEdits): TaskRecord {
  return { ...task, ...edits, on_complete: (edits.on_complete ?? task.on_complete) as OnComplete }
}

/** The `expect` rule: with enforce, the freshly loaded task must still be bound to project_path. */
export function checkExpect(task: TaskRecord, expect: ExpectT | undefined): void {
  if (expect?.enforce !== true) return
  if (expect.project_path === undefined) throw new InvalidRequest('expect.project_path is required when expect.enforce is true')
  const expected = projectPath(expect.project_path)
  if (expected !== task.project_path) {
    throw new Refused(
      `task ${task.id} is bound to ${task.project_path || 'no project'}, not ${expected} (expect.project_path); reload it and retry`,
    )
  }
}
