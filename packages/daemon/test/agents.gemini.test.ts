import { expect, it } from 'vitest'
import { alive, processGroup, session, tmux, waitFor } from '@svc/test-kit'
import { realAgentSuite } from './fixtures/real-agent-suite.js'

// The real Gemini CLI (pinned in test-kit/agent-clis.json), through GOOGLE_GEMINI_BASE_URL.
const run = realAgentSuite('gemini')

it('ends its processes when the session is killed: Gemini CLI ignores the hangup tmux sends', async () => {
  const { daemon } = run()
  const name = (await session(daemon, 'first')).tabs[0]?.tmux_name as string
  const pid = Number(tmux(daemon.home, 'list-panes', '-t', `=${name}:`, '-F', '#{pane_pid}').trim())
  // The CLI relaunches itself as a child node process.
  const processes = processGroup(pid)
  expect(processes.length).toBeGreaterThanOrEqual(2)
  await daemon.client.call('KillSession', { title: 'first' })
  await waitFor(() => processes.every((each) => !alive(each)) || undefined)
})
