import { describe, expect, it } from 'vitest'
import { render } from 'ink-testing-library'
import { SAMPLE_NOW } from '../sample.js'
import type { Task } from '../state/types.js'
import { health, nextRun, Tasks } from './Tasks.js'
import { KeyRoot } from './KeyRoot.js'
import { KEY, type } from './test-keys.js'

function task(overrides: Partial<Task>): Task {
  return {
    id: 't1',
    name: 'nightly',
    prompt: 'run the suite',
    cron_expr: '0 3 * * *',
    watch_cmd: '',
    target_session: '',
    max_concurrent_runs: 1,
    on_complete: '',
    project_path: '/src/shop',
    program: '',
    enabled: true,
    repo_id: 'r',
    dropped_events: 0,
    audit: [],
    overdue: false,
    missed_occurrences: 0,
    missed_occurrences_capped: false,
    unschedulable: false,
    unassessable: false,
    arming: 'armed',
    ordinal: 0,
    store_generation: 1,
    next_run_at: new Date(SAMPLE_NOW + 5 * 60_000).toISOString(),
    ...overrides,
  }
}

describe('Tasks', () => {
  it('says when each task runs next and how it has gone', () => {
    expect(nextRun(task({}), SAMPLE_NOW)).toBe('in 5m')
    expect(nextRun(task({ enabled: false }), SAMPLE_NOW)).toBe('disabled')
    expect(nextRun(task({ unschedulable: true, unschedulable_reason: 'bad cron' }), SAMPLE_NOW)).toBe('unschedulable: bad cron')
    expect(health(task({ last_run_status: 'failed', missed_occurrences: 3, missed_occurrences_capped: true }))).toBe('failed, missed 3+')
    expect(health(task({}))).toBe('never run')
  })

  it('lists tasks in store order and acts on the selected one', async () => {
    const toggled: string[] = []
    const triggered: string[] = []
    const app = render(
      <KeyRoot>
        <Tasks
          tasks={[task({ id: 't2', name: 'weekly', ordinal: 1 }), task({})]}
          projects={['/src/shop']}
          height={10}
          width={100}
          now={SAMPLE_NOW}
          onToggle={(each) => toggled.push(each.id)}
          onTrigger={(each) => triggered.push(each.id)}
          onAdd={() => undefined}
          onClose={() => undefined}
        />
      </KeyRoot>,
    )
    const lines = (app.lastFrame() ?? '').split('\n')
    expect(lines.findIndex((line) => line.includes('nightly'))).toBeLessThan(lines.findIndex((line) => line.includes('weekly')))
    await type(app, KEY.down, 'e', 'x')
    expect([toggled, triggered]).toEqual([['t2'], ['t2']])
  })

  it('adds a task from a form', async () => {
    let added: Record<string, string> | undefined
    const app = render(
      <KeyRoot>
        <Tasks tasks={[]} projects={['/src/shop']} height={10} width={100} now={SAMPLE_NOW} onToggle={() => undefined} onTrigger={() => undefined} onAdd={(values) => (added = values)} onClose={() => undefined} />
      </KeyRoot>,
    )
    await type(app, 'n', 'nightly', KEY.enter, KEY.enter, '0 3 * * *', KEY.enter, 'run the suite', KEY.enter)
    expect(added).toEqual({ name: 'nightly', project_path: '/src/shop', cron_expr: '0 3 * * *', prompt: 'run the suite' })
  })
})
