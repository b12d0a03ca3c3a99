import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, it } from 'vitest'
import { TaskStore } from '@svc/core'
import { startDaemon, tempHomes } from '@svc/test-kit'

const WRITER = fileURLToPath(new URL('./fixtures/tasks/store-writer.mjs', import.meta.url))
const homes = tempHomes()
afterAll(homes.release)

const SEED = {
  store_generation: 0,
  tasks: [{ id: 'seed', name: 'seed', prompt: '', cron_expr: '', watch_cmd: '', target_session: '', max_concurrent_runs: 0, on_complete: '', project_path: '', repo_id: '', program: '', enabled: false, dropped_events: 0, audit: [] }],
  runs: [],
}

function writer(path: string, name: string, count: number): Promise<number | null> {
  const child = spawn(process.execPath, [WRITER, path, name, String(count)], { stdio: ['ignore', 'ignore', 'inherit'] })
  return new Promise((resolve) => child.once('exit', resolve))
}

it('loses no write when several processes write tasks.json at once', async () => {
  const path = join(await homes.make(), 'tasks.json')
  await writeFile(path, JSON.stringify(SEED))
  const codes = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((name) => writer(path, name, 25)))
  expect(codes).toEqual([0, 0, 0, 0])
  const { doc } = await new TaskStore(path).load()
  expect(doc.store_generation).toBe(100)
  expect(doc.tasks).toHaveLength(101)
  for (const name of ['w1', 'w2', 'w3', 'w4']) {
    expect(doc.tasks.filter((task) => task.name === name)).toHaveLength(25)
  }
})

it('loses no write between the daemon and another process, and the daemon sees the other writes', async () => {
  const home = await homes.make()
  await writeFile(join(home, 'tasks.json'), JSON.stringify(SEED))
  const daemon = await startDaemon({ home })
  const [code] = await Promise.all([
    writer(daemon.paths.tasks, 'outside', 20),
    ...Array.from({ length: 20 }, (_, n) => daemon.client.call('AddTask', { task: { id: `daemon-${n}`, enabled: false } })),
  ])
  expect(code).toBe(0)
  const ids = (await daemon.client.call('ListTasks')).tasks.map((task) => task.id)
  expect(ids).toHaveLength(41)
  for (let n = 0; n < 20; n++) expect(ids).toEqual(expect.arrayContaining([`daemon-${n}`, `outside-${n}`]))
  expect((await new TaskStore(daemon.paths.tasks).load()).doc.store_generation).toBe(40)
})

it('keeps every acknowledged AddTask when the daemon is killed with SIGKILL right after', async () => {
  const home = await homes.make()
  let daemon = await startDaemon({ home })
  const acknowledged: string[] = []
  let killed: Promise<unknown> | undefined
  await Promise.allSettled(
    Array.from({ length: 12 }, (_, n) =>
      daemon.client.call('AddTask', { task: { id: `durable-${n}`, enabled: false } }).then(() => {
        acknowledged.push(`durable-${n}`)
        if (acknowledged.length === 6) killed = daemon.stop('SIGKILL')
      }),
    ),
  )
  await killed
  expect(acknowledged.length).toBeGreaterThanOrEqual(6)
  daemon = await startDaemon({ home })
  const ids = (await daemon.client.call('ListTasks')).tasks.map((task) => task.id)
  expect(ids).toEqual(expect.arrayContaining(acknowledged))
})
