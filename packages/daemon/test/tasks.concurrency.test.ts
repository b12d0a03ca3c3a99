import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { TaskStore } from '@svc/core'
import { startDaemon, tempHomes } from '@svc/test-kit'
import { lostWrites, storedTasks, taskWrites } from '../bench/task-writes.mjs'

/** 50 clients over 1,000 stored tasks; 40 mutations each here, 100 in `pnpm bench` (TASK_WRITES_MUTATIONS=100 for the full size). */
const CLIENTS = 50
const MUTATIONS = Number(process.env.TASK_WRITES_MUTATIONS ?? 40)
const STORED = 1000

const homes = tempHomes()
afterAll(homes.release)

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN

it(`keeps every acknowledged write of ${CLIENTS} clients making ${MUTATIONS} mutations each, over ${STORED} stored tasks, through a SIGKILL`, { timeout: 120_000 }, async () => {
  const home = join(await homes.make(), 'svc')
  await mkdir(home)
  await writeFile(join(home, 'tasks.json'), storedTasks(STORED))
  let daemon = await startDaemon({ home })
  const figures = await taskWrites({ socketPath: daemon.paths.socket, clients: CLIENTS, mutations: MUTATIONS, seed: 3 })
  process.stdout.write(
    `task writes: ${CLIENTS} clients x ${MUTATIONS} mutations over ${STORED} tasks in ${figures.seconds.toFixed(1)} s: ` +
      `${figures.rps.toFixed(0)} mutations/s, p50 ${percentile(figures.latencies, 50).toFixed(1)} ms, p99 ${percentile(figures.latencies, 99).toFixed(1)} ms\n`,
  )
  expect(figures.failures).toEqual([])
  expect(figures.latencies).toHaveLength(CLIENTS * MUTATIONS)
  expect(lostWrites(figures.expected, (await daemon.client.call('ListTasks')).tasks)).toEqual([])

  // Acknowledged means durable: a SIGKILL right after loses none of it.
  await daemon.stop('SIGKILL')
  expect(lostWrites(figures.expected, (await new TaskStore(daemon.paths.tasks).load()).doc.tasks)).toEqual([])
  daemon = await startDaemon({ home })
  const served = (await daemon.client.call('ListTasks')).tasks
  expect(lostWrites(figures.expected, served)).toEqual([])
  expect(served.filter((task) => task.id.startsWith('stored-'))).toHaveLength(STORED)
  // Every mutation bumped the generation once.
  expect(served[0]?.store_generation).toBe(STORED + CLIENTS * MUTATIONS)
})
