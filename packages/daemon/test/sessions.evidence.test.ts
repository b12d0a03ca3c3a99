import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempHomes, type TestDaemon } from '@svc/test-kit'
import { makeRepo, startSessionDaemon, tmux, waitForSession } from '@svc/test-kit'

// Prompt evidence belongs to the runtime it was gathered on: a replaced agent never got
// the last prompt, so no idle reason may rest on it.

const homes = tempHomes()
afterAll(homes.release)

// It shows nothing, not even what is typed, so a delivered prompt leaves the pane unchanged.
const SILENT = "sh -c 'while read line; do :; done'"
const PROMPT = 'Summarise the open issues in the tracker and propose an order to fix them'

async function deliverAndSettle(daemon: TestDaemon, title: string) {
  expect((await daemon.client.call('SendPrompt', { title, prompt: PROMPT })).status).toBe('delivered')
  const settled = await waitForSession(daemon, title, (s) => s.idle_reason === 'no-pane-change-since-delivery')
  expect(settled).toMatchObject({ liveness_name: 'ready', last_prompt_delivery_status: 'delivered' })
}

async function expectNoEvidence(daemon: TestDaemon, title: string) {
  const replaced = await waitForSession(daemon, title, (s) => s.liveness_name === 'ready')
  for (const field of ['last_prompt_attempt_at', 'last_prompt_delivery_status', 'last_pane_churn_at', 'idle_reason']) {
    expect(replaced, field).not.toHaveProperty(field)
  }
}

describe('a replaced runtime carries no prompt evidence', () => {
  let daemon: TestDaemon
  let repo: string
  let home: string

  beforeAll(async () => {
    const dir = await homes.make()
    repo = await makeRepo(dir)
    home = join(dir, 'svc')
    daemon = await startSessionDaemon({ home })
  })

  async function settledSession(title: string): Promise<string> {
    const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title, program: SILENT })
    await deliverAndSettle(daemon, title)
    return instance.tabs[0]?.tmux_name as string
  }

  it('after RestoreSession', async () => {
    await settledSession('reaped')
    await daemon.client.call('RestoreSession', { title: 'reaped', force_reap: true })
    await expectNoEvidence(daemon, 'reaped')
  })

  it('after ArchiveSession and RestoreArchived', async () => {
    await settledSession('shelved')
    await daemon.client.call('ArchiveSession', { title: 'shelved' })
    await daemon.client.call('RestoreArchived', { title: 'shelved' })
    await expectNoEvidence(daemon, 'shelved')
  })

  it('after automatic recovery of a lost session', async () => {
    const agent = await settledSession('vanished')
    tmux(home, 'kill-session', '-t', `=${agent}`)
    await waitForSession(daemon, 'vanished', (s) => s.liveness_name === 'lost', 5_000)
    await expectNoEvidence(daemon, 'vanished')
  })

  it('after a respawn at daemon start', async () => {
    const agent = await settledSession('respawned')
    await daemon.stop()
    tmux(home, 'kill-session', '-t', `=${agent}`)
    daemon = await startSessionDaemon({ home })
    await expectNoEvidence(daemon, 'respawned')
  })
})

it('falls back to created_at for a zero stored updated_at', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const home = join(dir, 'svc')
  const first = await startSessionDaemon({ home })
  const zeros: Record<string, unknown> = { go: '0001-01-01T00:00:00Z', empty: '', number: 0, nil: null }
  const files: Record<string, string> = {}
  for (const title of Object.keys(zeros)) {
    const { instance } = await first.client.call('CreateSession', { repo_path: repo, title, program: SILENT })
    await first.client.call('ArchiveSession', { title })
    files[title] = join(home, 'sessions', `${instance.id}.json`)
  }
  await first.stop()
  for (const [title, zero] of Object.entries(zeros)) {
    const stored = JSON.parse(await readFile(files[title] as string, 'utf8'))
    await writeFile(files[title] as string, JSON.stringify({ ...stored, updated_at: zero }))
  }

  const second = await startSessionDaemon({ home })
  const { instances } = await second.client.call('Snapshot', {})
  expect(instances).toHaveLength(4)
  for (const instance of instances) {
    expect(instance.updated_at, instance.title).toBe(instance.created_at)
    expect(Date.parse(instance.updated_at)).toBeGreaterThan(Date.parse('2000-01-01T00:00:00Z'))
  }
})
