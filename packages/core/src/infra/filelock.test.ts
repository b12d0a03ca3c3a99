import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import lockfile from 'lockfile'
import { afterEach, expect, it, vi } from 'vitest'
import { withFileLock } from './filelock.js'

let dir = ''
afterEach(async () => {
  vi.restoreAllMocks()
  await rm(dir, { recursive: true, force: true })
})

it('lets concurrent holders take turns, each lock waiting from its own first attempt', async () => {
  dir = await mkdtemp('/tmp/svc-')
  const path = join(dir, 'store.lock')
  const lock = vi.spyOn(lockfile, 'lock')
  const order: number[] = []
  await Promise.all(
    [0, 1, 2].map((n) =>
      withFileLock(path, async () => {
        order.push(n)
        await new Promise((resolve) => setTimeout(resolve, 30))
      }),
    ),
  )
  expect(order.sort()).toEqual([0, 1, 2])
  // lockfile stamps `start` on the options it is given (its own retries reuse them) and
  // bounds the wait by it: a lock must not inherit another's start, or once `wait` has
  // passed since the first lock of the process, no contended lock would wait at all.
  expect(new Set(lock.mock.calls.map(([, options]) => options)).size).toBe(3)
})
