import { statSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { tempHomes, type TestDaemon, openSessionDaemon, session, waitForSession } from '@svc/test-kit'

// updated_at moves with every real change to a session, and with nothing else.

const homes = tempHomes()
let daemon: TestDaemon
let repo: string

beforeAll(async () => ({ repo, daemon } = await openSessionDaemon(homes)))
afterAll(homes.release)

// Its pane never changes, not even by echoing what is typed, so the poll loop only
// ever moves it from running to ready.
const STEADY = "sh -c 'stty -echo; while read line; do :; done'"
let file: string

async function stamp() {
  return { updated_at: (await session(daemon, 'steady')).updated_at, saved: statSync(file).mtimeMs }
}

async function expectMoved(change: () => Promise<unknown>) {
  const before = await stamp()
  await sleep(5)
  await change()
  expect(Date.parse((await stamp()).updated_at)).toBeGreaterThan(Date.parse(before.updated_at))
}

/** Neither updated_at nor the stored record changes. */
async function expectStill(change: () => Promise<unknown>) {
  const before = await stamp()
  await sleep(5)
  await change()
  expect(await stamp()).toEqual(before)
}

it('moves on running to ready, SendPrompt, CreateTab and CloseTab, and not on a no-op rename or reorder', async () => {
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'steady', program: STEADY })
  file = join(daemon.home, 'sessions', `${instance.id}.json`)
  expect(instance.updated_at).toBe(instance.created_at)
  const ready = await waitForSession(daemon, 'steady', (s) => s.liveness_name === 'ready')
  expect(ready).not.toHaveProperty('last_pane_churn_at')
  expect(Date.parse(ready.updated_at)).toBeGreaterThan(Date.parse(instance.updated_at))

  let tab: string | undefined
  await expectMoved(async () => ({ id: tab } = await daemon.client.call('CreateTab', { title: 'steady', kind: 'web', port: 3000 })))
  await expectStill(() => daemon.client.call('RenameTab', { title: 'steady', tab_id: tab, new_name: 'web' }))
  await expectStill(() => daemon.client.call('ReorderTab', { title: 'steady', tab_id: tab, new_index: 1 }))
  await expectMoved(() => daemon.client.call('CloseTab', { title: 'steady', tab_id: tab }))
  await expectMoved(async () => {
    expect((await daemon.client.call('SendPrompt', { title: 'steady', prompt: 'tick' })).status).toBe('sent-unverified')
  })
})
