import { describe, expect, it } from 'vitest'
import type { TSchema } from 'typebox'
import { routes } from '../routes/index.js'
import * as sessions from './sessions.js'
import * as tasks from './tasks.js'

/** The request fields the API document lists per operation (repo-level config's, a hook kill's force_reap and discard, and a create's ssh host from the design decisions). */
const documented: Record<string, string[]> = {
  CreateSession: ['title', 'title_base', 'repo_path', 'program', 'account', 'prompt', 'in_place', 'force_remote', 'backend', 'host'],
  ListBackends: ['repo_path'],
  ListPrograms: ['repo_path'],
  SuggestSessionName: [],
  Snapshot: ['repo_id', 'live', 'statuses', 'created_after', 'limit'],
  KillSession: ['title', 'repo_id', 'id', 'force_reap', 'discard'],
  ArchiveSession: ['title', 'repo_id', 'id'],
  RestoreArchived: ['title', 'repo_id', 'id'],
  RestoreSession: ['title', 'repo_id', 'id', 'expected_daemon_boot_id', 'force_reap'],
  SendPrompt: ['title', 'repo_id', 'prompt', 'id'],
  ResumeFromLimit: ['title', 'repo_id', 'id'],
  HandoffSession: ['title', 'repo_id', 'id', 'to', 'account', 'brief'],
  DeliverPrompt: ['title', 'repo_path', 'program', 'prompt', 'defer_while_attached'],
  DeleteProject: ['repo_path', 'repo_id'],
  RegisterProject: ['path'],
  TrustProject: ['path'],
  ListProjects: [],
  ListDirectory: ['path'],
  CreateTab: ['title', 'repo_id', 'command', 'name', 'shell', 'kind', 'url', 'port', 'id'],
  CloseTab: ['title', 'repo_id', 'tab_name', 'tab_index', 'id', 'tab_id'],
  RenameTab: ['title', 'repo_id', 'tab_name', 'tab_index', 'new_name', 'id', 'tab_id'],
  ReorderTab: ['title', 'repo_id', 'tab_name', 'tab_index', 'new_index', 'id', 'tab_id'],
  ListAccounts: ['agent', 'repo_path'],
  RegisterAccount: ['agent', 'name'],
  AccountLogin: ['agent', 'name'],
  GetConfig: ['repo_path'],
  SetConfigValue: ['key', 'value', 'repo_path'],
  UnsetConfigValue: ['key', 'repo_path'],
  ListOnComplete: [],
  ListTasks: [],
  AddTask: ['task', 'actor'],
  UpdateTask: ['id', 'update', 'expect', 'actor'],
  RemoveTask: ['id', 'expect'],
  RestartTask: ['id', 'expect'],
  TriggerTask: ['id', 'expect'],
}

const properties = (schema: unknown) => Object.keys((schema as { properties: object }).properties).sort()

const served = new Map<string, TSchema>(routes.map((route) => [route.name, route.request]))
/** Documented operations this version does not serve: their schemas are covered by no test. */
const unserved = Object.keys(documented).filter((name) => !served.has(name))

describe('the served contract', () => {
  it.each(Object.entries(documented).filter(([name]) => served.has(name)))(
    '%s is served with exactly the documented request fields',
    (name, fields) => {
      expect(properties(served.get(name))).toEqual([...fields].sort())
    },
  )

  it('serves only documented operations in the catalog, besides the health probe', () => {
    const catalogued = routes.filter((route) => route.public).map((route) => route.name)
    expect(catalogued.filter((name) => name !== 'Health' && !(name in documented))).toEqual([])
  })

  // Listed as to-do, not passed: a schema nothing serves proves nothing about the daemon.
  for (const name of unserved) it.todo(`${name}: not served in this version, so its schema is untested`)

  it('has the nested task, update and expect objects', () => {
    const add = (tasks.AddTaskRequest.properties.task as TSchema & { properties: object })
    expect(properties(add)).toEqual(properties(tasks.Task))
    expect(properties(tasks.UpdateTaskRequest.properties.update)).toEqual(
      ['name', 'prompt', 'cron_expr', 'watch_cmd', 'target_session', 'max_concurrent_runs', 'on_complete', 'project_path', 'program', 'enabled'].sort(),
    )
    expect(properties(tasks.Expect)).toEqual(['enforce', 'project_path'])
  })

  it('lists every session object field', () => {
    for (const field of ['created_at', 'updated_at', 'status', 'status_name', 'liveness', 'liveness_name', 'tabs', 'tab_kinds', 'idle_reason', 'lost_restore_failure', 'last_pane_churn_at', 'boot_id', 'id', 'title', 'repo_id', 'repo_path', 'path', 'branch', 'program', 'account', 'backend', 'in_place', 'last_prompt_attempt_at', 'last_prompt_delivery_status']) {
      expect(properties(sessions.Session)).toContain(field)
    }
    expect(properties(sessions.Session)).not.toContain('pr_info')
  })
})
