import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FeedFrame } from '@svc/protocol'
import { FAKE_AGENT, logEntries, openSessionDaemon, recordEvents, session, tempHomes, waitFor, waitForSession, type Recorder, type TestDaemon } from '@svc/test-kit'

const NOTIFY = fileURLToPath(new URL('./fixtures/notify-record.sh', import.meta.url))

const homes = tempHomes()
let daemon: TestDaemon
let repo: string
let dir: string
let feed: Recorder

beforeAll(async () => {
  ;({ dir, repo, daemon } = await openSessionDaemon(homes))
  feed = await recordEvents(daemon.client)
}, 60_000)
afterAll(async () => {
  feed.close()
  await homes.release()
})

async function create(title: string, program?: string) {
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title, ...(program ? { program } : {}) })
  return instance
}

/** The frames about one session, by kind. */
const about = (id: string) => feed.frames.filter((frame) => frame.type.startsWith('session.') && 'data' in frame && (frame.data as { id: string }).id === id)

const settings = (key: string, value: string) => daemon.client.call('SetConfigValue', { key, value })

describe('session events', () => {
  it('follow a session through its life, each as Snapshot shows it, and end where Snapshot is', async () => {
    const from = feed.frames.length
    const instance = await create('life')
    const created = await feed.next('session.created', (frame) => frame.data.id === instance.id, from)
    expect(created.data).toMatchObject({ id: instance.id, title: 'life', status_name: 'running', repo_id: instance.repo_id })
    await daemon.client.call('SendPrompt', { title: 'life', prompt: 'hello there' })
    await feed.next('session.updated', (frame) => frame.data.id === instance.id && frame.data.last_prompt_attempt_at !== undefined, from)
    await waitForSession(daemon, 'life', (s) => s.idle_reason === 'settled-after-pane-change')
    // The feed's last word on the session is what Snapshot answers.
    await waitFor(async () => {
      const last = about(instance.id).at(-1) as Extract<FeedFrame, { type: 'session.updated' }>
      return JSON.stringify(last.data) === JSON.stringify(await session(daemon, 'life')) || undefined
    })

    // An operation's change is sent as the session is once it ended, not as it looked in flight.
    const tab = await daemon.client.call('CreateTab', { title: 'life', kind: 'web', url: 'http://127.0.0.1:9/' })
    const withTab = await feed.next('session.updated', (frame) => frame.data.id === instance.id && frame.data.tabs.some((shown) => shown.id === tab.id), from)
    expect(withTab.data.idle_reason).toBe('settled-after-pane-change')

    await daemon.client.call('ArchiveSession', { title: 'life' })
    expect((await feed.next('session.archived', (frame) => frame.data.id === instance.id, from)).data.status_name).toBe('archived')
    await daemon.client.call('RestoreArchived', { title: 'life' })
    expect((await feed.next('session.restored', (frame) => frame.data.id === instance.id, from)).data.status_name).toBe('running')
    await daemon.client.call('KillSession', { title: 'life' })
    expect((await feed.next('session.killed', (frame) => frame.data.id === instance.id, from)).data).toEqual({
      id: instance.id,
      title: 'life',
      repo_id: instance.repo_id,
    })
    const seqs = feed.frames.slice(from).map((frame) => (frame.type === 'hello' ? 0 : frame.seq))
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    expect(new Set(seqs).size).toBe(seqs.length)
  }, 60_000)

  it('are coalesced to one per session per poll tick: changes made within one tick arrive as one update', async () => {
    await settings('daemon_poll_interval', '4s')
    try {
      const instance = await create('busy')
      const from = feed.frames.findIndex((frame) => frame.type === 'session.created' && frame.data.id === instance.id)
      // Both changes land in the tick of the creation, which has sent its one frame.
      const tab = await daemon.client.call('CreateTab', { title: 'busy', kind: 'web', url: 'http://127.0.0.1:9/' })
      await daemon.client.call('RenameTab', { title: 'busy', tab_id: tab.id ?? '', new_name: 'docs' })
      const update = await feed.next('session.updated', (frame) => frame.data.id === instance.id, from, 20_000)
      expect(update.data.tabs.map((shown) => shown.name)).toEqual(['agent', 'docs'])
      // No frame ever showed the tab under its first name.
      const names = about(instance.id).flatMap((frame) => ('data' in frame && 'tabs' in frame.data ? frame.data.tabs.map((shown) => shown.name) : []))
      expect(names).not.toContain(tab.name)
    } finally {
      await settings('daemon_poll_interval', '200ms')
    }
  }, 60_000)
})

describe('attention', () => {
  it('is called when an agent settles after working, hits a usage limit, or misses a prompt', async () => {
    const worker = await create('worker')
    const from = feed.frames.length
    await daemon.client.call('SendPrompt', { title: 'worker', prompt: 'do the thing' })
    expect((await feed.next('session.attention', (frame) => frame.data.id === worker.id, from)).data).toEqual({
      id: worker.id,
      title: 'worker',
      repo_id: worker.repo_id,
      reason: 'settled',
    })
    await daemon.client.call('SendPrompt', { title: 'worker', prompt: '/limit' })
    await feed.next('session.attention', (frame) => frame.data.id === worker.id && frame.data.reason === 'usage-limit', from)

    const cut = await create('cut', `node ${FAKE_AGENT} --truncate-echo 20`)
    await waitForSession(daemon, 'cut', (s) => s.liveness_name === 'ready')
    const long = 'Summarise the open issues in the tracker and propose an order to fix them'
    expect((await daemon.client.call('SendPrompt', { title: 'cut', prompt: long })).status).toBe('not-delivered')
    await feed.next('session.attention', (frame) => frame.data.id === cut.id && frame.data.reason === 'prompt-not-delivered', from)
    // Reads and a quiet pane call for nobody.
    await daemon.client.call('Snapshot', {})
    const calls = feed.ofKind('session.attention').filter((frame) => frame.data.id === worker.id)
    expect(calls.map((frame) => frame.data.reason)).toEqual(['settled', 'usage-limit'])
  }, 60_000)

  it('runs notify_command with the event on stdin, once per session per 30 s, and logs its failures', async () => {
    const record = join(dir, 'notified')
    await settings('notify_command', `${NOTIFY} ${record}`)
    const pinged = await create('pinged')
    const from = feed.frames.length
    await daemon.client.call('SendPrompt', { title: 'pinged', prompt: '/limit' })
    const limit = await feed.next('session.attention', (frame) => frame.data.id === pinged.id, from)
    expect(await waitFor(async () => JSON.parse(await readFile(record, 'utf8')) as unknown)).toEqual(limit)

    // Resumed, it works and stops again: called for again on the feed, but not notified again so soon.
    await daemon.client.call('ResumeFromLimit', { title: 'pinged' })
    await feed.next('session.attention', (frame) => frame.data.id === pinged.id && frame.seq > limit.seq, from)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect((await readFile(record, 'utf8')).trim().split('\n')).toHaveLength(1)

    await settings('notify_command', `${NOTIFY} ${record}.failed 3`)
    const failing = await create('failing')
    await daemon.client.call('SendPrompt', { title: 'failing', prompt: '/limit' })
    await feed.next('session.attention', (frame) => frame.data.id === failing.id, from, 20_000)
    const logged = await waitFor(async () => (await logEntries(daemon)).find((entry) => entry.msg === 'notify_command failed'))
    expect(logged).toMatchObject({ session: 'failing', code: 3, stderr: 'notify-record: failing with 3 on purpose' })
    expect(await readFile(`${record}.failed`, 'utf8')).toContain('"reason":"usage-limit"')
  }, 60_000)
})
