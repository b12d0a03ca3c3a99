import type { TaskRecord } from './record.js'

/** An hourly cron task created at 00:30 UTC on 2026-01-01, for unit tests of derived fields. */
export const hourlyTask = (fields: Partial<TaskRecord>): TaskRecord => ({
  id: 'hourly',
  name: '',
  prompt: 'p',
  cron_expr: '0 * * * *',
  watch_cmd: '',
  target_session: '',
  max_concurrent_runs: 0,
  on_complete: '',
  project_path: '/repo',
  repo_id: 'r',
  program: '',
  enabled: true,
  created_at: '2026-01-01T00:30:00.000Z',
  dropped_events: 0,
  audit: [],
  ...fields,
})
