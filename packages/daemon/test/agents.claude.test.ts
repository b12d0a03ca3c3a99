import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { git, logShowing, setUpClaudeAccount, waitFor } from '@svc/test-kit'
import { realAgentSuite } from './fixtures/real-agent-suite.js'

// The real Claude Code (pinned in test-kit/agent-clis.json).
const run = realAgentSuite('claude')
const claude = () => run().agents.claude!

it("runs an account session with that account's config directory", async () => {
  const { daemon } = run()
  await daemon.client.call('RegisterAccount', { agent: 'claude', name: 'work' })
  await setUpClaudeAccount(claude().agent, join(daemon.home, 'accounts', 'claude', 'work'), 'work-account-token')
  const prompt = 'Which account is this?'
  const { instance } = await daemon.client.call('CreateSession', { repo_path: await run().newRepo('billed'), title: 'billed', prompt, account: 'work' })
  expect(instance.last_prompt_delivery_status).toBe('delivered')
  const turn = await waitFor(() => claude().standIn.turns.find((each) => each.userText.includes(prompt)))
  expect(turn.credential).toBe('work-account-token')
})

it('answers the new-MCP-server question that follows folder trust in a repository with an .mcp.json', async () => {
  const repo = await run().newRepo('tooled')
  await writeFile(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { echo: { command: 'true' } } }))
  git(repo, 'add', '.mcp.json')
  git(repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'an MCP server')
  const prompt = 'Use the tools you have'
  const { instance } = await run().daemon.client.call('CreateSession', { repo_path: repo, title: 'tooled', prompt })
  expect(instance.last_prompt_delivery_status).toBe('delivered')
  await waitFor(() => claude().standIn.received(prompt) === 1 || undefined)
  await logShowing(run().daemon, /"gate":"new MCP server".*"msg":"answered a start-up gate"/)
})

it('briefs the config assistant, a Claude in SERVICE_HOME, past its folder-trust question', async () => {
  await run().daemon.client.configAssistant.open()
  const brief = await waitFor(() => claude().standIn.turns.find((turn) => turn.userText.startsWith('You are the configuration assistant of svc')), 30_000)
  expect(brief.userText).toContain('agent_gates')
  await run().daemon.client.configAssistant.reap()
})
