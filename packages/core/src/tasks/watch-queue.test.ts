import { setTimeout as sleep } from 'node:timers/promises'
import { expect, it } from 'vitest'
import { WatchQueue } from './watch-queue.js'

it('runs events while a slot is free, holds the excess up to capacity, and counts what overflows', async () => {
  let slots = 0
  const ran: string[] = []
  let dropped = 0
  const queue = new WatchQueue(
    () => slots > 0,
    async (event) => {
      slots--
      ran.push(event)
    },
    (count) => (dropped += count),
    3,
  )
  for (const event of ['a', 'b', 'c', 'd', 'e']) queue.push(event)
  await sleep(10)
  expect(ran).toEqual([])
  expect(dropped).toBe(2)

  slots = 2
  queue.poke()
  await sleep(10)
  expect(ran).toEqual(['a', 'b'])

  await queue.stop()
  // what still waited at the stop is dropped too
  expect(dropped).toBe(3)
  queue.push('f')
  expect(ran).toEqual(['a', 'b'])
})

it('stops only after the run in progress returns', async () => {
  let finished = false
  const queue = new WatchQueue(
    () => true,
    async () => {
      await sleep(100)
      finished = true
    },
    () => {},
  )
  queue.push('slow')
  await sleep(10)
  await queue.stop()
  expect(finished).toBe(true)
})
