import { execFileSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, expect, it } from 'vitest'
import { systemClock } from '../infra/clock.js'
import type { Config } from '../config/config.js'
import { NO_SESSIONS } from './runs.js'
import { Tasks } from './tasks.js'

let dir = ''
let tasks: Tasks | undefined
afterEach(async () => {
  await tasks?.close()
  await rm(dir, { recursive: true, force: true })
})

it('refuses runs and target checks loudly until sessions are attached, and records the failed run', async () => {
  dir = await mkdtemp('/tmp/svc-')
  execFileSync('git', ['init', '-q', dir])
  const config = { get: () => 1000 } as unknown as Config
  tasks = new Tasks({ path: join(dir, 'tasks.json'), config, log: pino({ level: 'silent' }), clock: systemClock })
  await tasks.restore()
  await tasks.add({ task: { id: 'lonely', cron_expr: '0 0 1 1 *', prompt: 'p', project_path: dir } })
  await expect(tasks.trigger({ id: 'lonely' })).rejects.toThrow(NO_SESSIONS)
  const [task] = (await tasks.list()).tasks
  expect(task?.last_run_status).toBe(`failed: ${NO_SESSIONS}`)
  await expect(tasks.add({ task: { cron_expr: '0 0 1 1 *', prompt: 'p', project_path: dir, target_session: 's' } })).rejects.toThrow(
    NO_SESSIONS,
  )
  expect((await tasks.list()).tasks).toHaveLength(1)
})
