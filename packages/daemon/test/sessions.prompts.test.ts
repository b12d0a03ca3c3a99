import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { servicePaths } from '@svc/protocol'
import { tempHomes, waitFor, type TestDaemon, FAKE_AGENT, paneText, session, tmux, waitForSession, openSessionDaemon } from '@svc/test-kit'

const homes = tempHomes()
let daemon: TestDaemon
let repo: string

beforeAll(async () => ({ repo, daemon } = await openSessionDaemon(homes, { settings: { limit_retry_interval: '1s' } })))
afterAll(homes.release)

/** Creates a session and, unless its program draws nothing, waits for its first output. */
async function start(title: string, program?: string, { draws = true } = {}) {
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title, ...(program ? { program } : {}) })
  const pane = instance.tabs[0]?.tmux_name as string
  if (draws) await waitFor(() => paneText(daemon.home, pane).trim() !== '' || undefined)
  return pane
}

const LONG = 'Summarise the open issues in the tracker and propose an order to fix them'

describe('the delivery check', () => {
  it('reports delivered when the pane shows the prompt, and no pane change when nothing reacts', async () => {
    await start('silent', "sh -c 'while read line; do :; done'", { draws: false })
    expect(await daemon.client.call('SendPrompt', { title: 'silent', prompt: LONG })).toEqual({ ok: true, status: 'delivered' })
    const settled = await waitForSession(daemon, 'silent', (s) => s.liveness_name === 'ready')
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(await session(daemon, 'silent')).toMatchObject({
      idle_reason: 'no-pane-change-since-delivery',
      last_prompt_delivery_status: 'delivered',
      updated_at: settled.updated_at,
    })
  })

  it('reports sent-unverified when the pane never shows the prompt', async () => {
    // It draws once echo is off, so the paste cannot arrive before that.
    await start('blind', "sh -c 'stty -echo; echo listening; while read line; do :; done'")
    expect((await daemon.client.call('SendPrompt', { title: 'blind', prompt: LONG })).status).toBe('sent-unverified')
    const blind = await waitForSession(daemon, 'blind', (s) => s.liveness_name === 'ready')
    expect(blind.idle_reason).toBe('delivery-unconfirmed')
  })

  it('reports not-delivered when only the beginning arrives, retries once and never presses Enter', async () => {
    const pane = await start('cut', `node ${FAKE_AGENT} --truncate-echo 20`)
    expect((await daemon.client.call('SendPrompt', { title: 'cut', prompt: LONG })).status).toBe('not-delivered')
    const cut = await waitForSession(daemon, 'cut', (s) => s.liveness_name === 'ready')
    expect(cut.idle_reason).toBe('prompt-not-delivered')
    expect(paneText(daemon.home, pane)).not.toContain('received:')
  })

  it('refuses bad prompts and unknown sessions', async () => {
    expect((await daemon.post('/v1/SendPrompt', { title: 'silent' })).json.error.message).toBe('prompt is required')
    expect((await daemon.post('/v1/SendPrompt', { title: 'nobody', prompt: 'x' })).json.error.message).toBe(
      'no session titled "nobody"',
    )
    expect((await daemon.post('/v1/SendPrompt', { prompt: 'x' })).json.error.message).toBe('title or id is required')
  })

  it('never interleaves concurrent prompts to one session', async () => {
    const pane = await start('busy')
    const prompts = Array.from({ length: 4 }, (_, i) => `concurrent prompt number ${i} with some length to it`)
    const replies = await Promise.all(prompts.map((prompt) => daemon.client.call('SendPrompt', { title: 'busy', prompt })))
    expect(replies.map((reply) => reply.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered'])
    await waitFor(() => prompts.every((prompt) => paneText(daemon.home, pane).includes(`received: ${prompt}`)) || undefined)
  })
})

describe('usage limits', () => {
  it('parks a session at the banner as ready/limit-reached and resumes it on request', async () => {
    const pane = await start('walled')
    await daemon.client.call('SendPrompt', { title: 'walled', prompt: '/limit' })
    const walled = await waitForSession(daemon, 'walled', (s) => s.liveness_name === 'limit-reached')
    expect(walled).toMatchObject({ status: 1, status_name: 'ready', liveness: 6, idle_reason: 'usage-limit' })
    const statuses = async (word: string) =>
      (await daemon.client.call('Snapshot', { statuses: [word] })).instances.map((s) => s.title)
    expect(await statuses('limit-reached')).toEqual(['walled'])
    expect(await statuses('ready')).not.toContain('walled')

    await daemon.client.call('ResumeFromLimit', { title: 'walled' })
    await waitFor(() => paneText(daemon.home, pane).includes('received: continue') || undefined)
    await expect(daemon.client.call('ResumeFromLimit', { title: 'silent' })).rejects.toThrow('is not at a usage limit')
  })

  it('uses limit_patterns instead of the built-in banner, and resumes automatically when asked to', async () => {
    await daemon.client.call('SetConfigValue', { key: 'limit_patterns.claude', value: 'custom wall' })
    await daemon.client.call('SetConfigValue', { key: 'limit_auto_resume', value: 'true' })
    const pane = await start('custom')
    await daemon.client.call('SendPrompt', { title: 'custom', prompt: 'a custom wall appears' })
    await waitForSession(daemon, 'custom', (s) => s.liveness_name === 'limit-reached')
    // No reset time in this banner: the retry interval (1s here) applies.
    await waitFor(() => paneText(daemon.home, pane).includes('received: continue') || undefined)
    await daemon.client.call('SetConfigValue', { key: 'limit_auto_resume', value: 'false' })
  })
})

describe('DeliverPrompt', () => {
  it('creates the session when missing (started) and sends into it otherwise (sent)', async () => {
    const first = await daemon.client.call('DeliverPrompt', { title: 'courier', repo_path: repo, prompt: 'first errand for you' })
    expect(first).toEqual({ status: 'started', delivery: 'delivered' })
    const second = await daemon.client.call('DeliverPrompt', { title: 'courier', repo_path: repo, prompt: 'second errand for you' })
    expect(second).toEqual({ status: 'sent', delivery: 'delivered' })
    const pane = (await session(daemon, 'courier')).tabs[0]?.tmux_name as string
    await waitFor(() => paneText(daemon.home, pane).includes('received: second errand for you') || undefined)
  })

  it('refuses an archived target', async () => {
    await start('shelf')
    await daemon.client.call('ArchiveSession', { title: 'shelf' })
    await expect(daemon.client.call('DeliverPrompt', { title: 'shelf', repo_path: repo, prompt: 'x' })).rejects.toThrow(
      'session "shelf" is archived; restore it with RestoreArchived first',
    )
  })

  it('with defer_while_attached, waits for the attached terminal client to detach', async () => {
    const pane = await start('watched')
    const client = spawn('script', ['-qec', `tmux -S ${servicePaths(daemon.home).tmuxSocket} attach -t =${pane}`, '/dev/null'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    try {
      await waitFor(() => attached(pane))
      const reply = await daemon.client.call('DeliverPrompt', {
        title: 'watched',
        repo_path: repo,
        prompt: 'do this once they leave',
        defer_while_attached: true,
      })
      expect(reply).toEqual({ status: 'sent', deferred: true })
      expect((await session(daemon, 'watched')).pending_prompts).toBe(1)
      await new Promise((resolve) => setTimeout(resolve, 600))
      expect(paneText(daemon.home, pane)).not.toContain('do this once they leave')
    } finally {
      client.kill('SIGKILL')
    }
    await waitFor(() => paneText(daemon.home, pane).includes('received: do this once they leave') || undefined)
    await waitFor(async () => ((await session(daemon, 'watched')).pending_prompts === undefined ? true : undefined))
  })
})

function attached(pane: string): true | undefined {
  return tmux(daemon.home, 'display-message', '-p', '-t', `=${pane}:`, '#{session_attached}').trim() !== '0' || undefined
}
