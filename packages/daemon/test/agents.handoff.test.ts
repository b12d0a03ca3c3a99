import { afterAll, beforeAll, expect, it } from 'vitest'
import { startRealAgentDaemon, tempHomes, waitFor, waitForSession, type RealAgentDaemon } from '@svc/test-kit'

// Real Claude Code hands its session to real Codex: Codex's model must get the brief.
const homes = tempHomes()
let run: RealAgentDaemon

beforeAll(async () => {
  run = await startRealAgentDaemon(homes, ['claude', 'codex'])
}, 60_000)
afterAll(async () => {
  await run.close()
  await homes.release()
})

it("hands a Claude session to Codex, whose model receives the brief past Codex's own folder-trust question", async () => {
  const { daemon, agents } = run
  const goal = 'Make the parser accept trailing commas'
  const { instance } = await daemon.client.call('CreateSession', { repo_path: await run.newRepo('parser'), title: 'parser', prompt: goal })
  expect(instance.last_prompt_delivery_status).toBe('delivered')
  await waitFor(() => agents.claude!.standIn.received(goal) === 1 || undefined)
  await waitForSession(daemon, 'parser', (s) => s.liveness_name === 'ready', 30_000)

  await daemon.client.call('HandoffSession', { title: 'parser', to: 'codex' })
  const brief = await waitFor(() => agents.codex!.standIn.turns.find((turn) => turn.userText.includes(`Goal: ${goal}`)), 60_000)
  expect(brief.userText).toContain('handed the work over to you, codex')
  expect(agents.codex!.standIn.turns.filter((turn) => turn.userText.includes(`Goal: ${goal}`))).toHaveLength(1)
  const after = await waitForSession(daemon, 'parser', (s) => s.mission_pending === undefined && s.program === 'codex', 30_000)
  expect(after.last_prompt_delivery_status).toBe('delivered')
})
