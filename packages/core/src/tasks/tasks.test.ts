import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, expect, it } from 'vitest'
import { systemClock } from '../infra/clock.js'
import type { Config } from '../config/config.js'
import { MutationCommitted } from '../errors.js'
import type { SessionPort } from '../tasks-port.js'
import { NO_SESSIONS } from './runs.js'
import { Tasks } from './tasks.js'

let dir = ''
/** The engine a test opened, closed after it. */
let opened: Tasks | undefined
afterEach(async () => {
  await opened?.close()
  await rm(dir, { recursive: true, force: true })
})

async function engine(): Promise<Tasks> {
  dir = await mkdtemp('/tmp/svc-')
  execFileSync('git', ['init', '-q', dir])
  const config = { get: () => 1000 } as unknown as Config
  opened = new Tasks({ path: join(dir, 'tasks.json'), config, log: pino({ level: 'silent' }), clock: systemClock, env: process.env })
  return opened
}

it('refuses runs and target checks loudly until sessions are attached, and records the failed run', async () => {
  const tasks = await engine()
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

it('reports a run that happened but could not be recorded as committed, never as a plain failure', async () => {
  const tasks = await engine()
  // Sessions stand in here only to break tasks.json while a run starts.
  const port = {
    spawn: async () => {
      await writeFile(join(dir, 'tasks.json'), '{ broken')
      return { id: 'session-1', title: 'report' }
    },
    onSettled: () => {},
  } as unknown as SessionPort
  tasks.attach(port)
  await tasks.restore()
  await tasks.add({ task: { id: 'report', cron_expr: '0 0 1 1 *', prompt: 'p', project_path: dir } })
  const outcome = tasks.trigger({ id: 'report' })
  await expect(outcome).rejects.toBeInstanceOf(MutationCommitted)
  await expect(outcome).rejects.toThrow('task report ran (spawned report), but recording the run failed')
})
