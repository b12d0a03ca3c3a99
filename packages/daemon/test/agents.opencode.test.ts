import { expect, it } from 'vitest'
import { PROFILES, readScreen } from '@svc/core'
import { captureScreen, waitFor, waitForSession } from '@svc/test-kit'
import { realAgentSuite } from './fixtures/real-agent-suite.js'

// The real opencode (pinned in test-kit/agent-clis.json), through a custom OpenAI-compatible provider.
const run = realAgentSuite('opencode')

/** A reply that draws the composer's last line and the busy footer, a rule above them, in the history. */
const QUOTE = 'While I work, the bottom of my screen reads:\n\n---\n\n```\nBuild · Stand-in Model Stand-in\n■■■⬝⬝⬝⬝⬝  esc interrupt        ctrl+p commands\n```\n\nand it goes once I am done.'

it('reads a reply that quotes its busy line as a settled agent', async () => {
  const { daemon } = run()
  const opencode = run().agents.opencode!
  opencode.standIn.settings.reply = QUOTE
  expect((await daemon.client.call('SendPrompt', { title: 'asked', prompt: 'What does your busy line say?' })).status).toBe('delivered')
  await waitFor(async () => (await run().screen('asked')).includes('it goes once I am done') || undefined)
  const settled = await waitForSession(daemon, 'asked', (s) => s.liveness_name === 'ready', 30_000)
  expect(settled.idle_reason).toBe('settled-after-pane-change')
  const screen = await run().screen('asked')
  await captureScreen('opencode', opencode.agent.version, 'prose-quote', screen)
  expect(readScreen(PROFILES.opencode!, screen)).toEqual({ composer: true, empty: true, busy: false })
})
