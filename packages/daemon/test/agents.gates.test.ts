import { existsSync } from 'node:fs'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { openSessionDaemon, recordEvents, tempHomes, waitFor, waitForSession, type TestDaemon } from '@svc/test-kit'

// An agent that raises Claude Code's real folder-trust dialog (the screen captured from
// the CLI), run under the name `claude` so the daemon reads it with Claude's profile.
const GATED = fileURLToPath(new URL('../../test-kit/fixtures/gated-agent.mjs', import.meta.url))
const SCREENS = fileURLToPath(new URL('../../core/src/agents/fixtures/claude-2.1.332/', import.meta.url))

const homes = tempHomes()
let daemon: TestDaemon
let dir: string
let repo: string

beforeAll(async () => {
  // A prompt waits 3 s for a composer here, not a minute.
  ;({ dir, repo, daemon } = await openSessionDaemon(homes, { env: { SVC_COMPOSER_WAIT_MS: '3000' } }))
  await mkdir(join(dir, 'bin'))
  await symlink(GATED, join(dir, 'bin', 'claude'))
})
afterAll(homes.release)

/** The command line of a gated agent recording its keys in `keys`. */
const gated = (keys: string, ...flags: string[]) =>
  `node ${join(dir, 'bin', 'claude')} --screen ${SCREENS}trust.txt --composer ${SCREENS}composer.txt --keys ${keys} ${flags.join(' ')}`
const keysIn = async (file: string) => (existsSync(file) ? (await readFile(file, 'utf8')).split('\n').filter(Boolean) : [])

it('answers a start-up gate by choosing its accepting option, never loops Enter into one that stays, and types no prompt into it', async () => {
  const events = await recordEvents(daemon.client)
  const keys = join(dir, 'stubborn.keys')
  await daemon.client.call('CreateSession', { repo_path: repo, title: 'stubborn', program: gated(keys, '--stays') })
  const asking = await waitForSession(daemon, 'stubborn', (s) => s.idle_reason === 'agent-asks', 30_000)
  expect(asking).toMatchObject({ liveness_name: 'ready', agent_asks: 'folder trust' })
  await events.next('session.attention', (frame) => frame.data.title === 'stubborn' && frame.data.reason === 'agent-asks')
  // Three answers, each moving off the preselected refusal first; then it is the user's.
  const answers = (await keysIn(keys)).filter((key) => key.startsWith('Enter'))
  expect(answers).toEqual(Array(3).fill('Enter:Yes, I trust this folder'))

  const sent = await daemon.client.call('SendPrompt', { title: 'stubborn', prompt: 'refactor the parser please' })
  expect(sent).toEqual({ ok: true, status: 'not-delivered', reason: 'the agent asks "folder trust", which is left to you: answer it in its terminal' })
  expect((await keysIn(keys)).join('\n')).not.toContain('refactor')
  expect((await keysIn(keys)).filter((key) => key.startsWith('Enter'))).toHaveLength(3)
  events.close()
})

it('with agent_gates ask, leaves the gate to the user (a repository cannot loosen that), then answers it once allowed', async () => {
  await daemon.client.call('SetConfigValue', { key: 'agent_gates', value: 'ask' })
  // The repository asks for accept: the global ask still wins.
  await mkdir(join(repo, '.svc'), { recursive: true })
  await writeFile(join(repo, '.svc', 'config.json'), JSON.stringify({ agent_gates: 'accept' }))
  const keys = join(dir, 'asker.keys')
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'asker', program: gated(keys), prompt: 'first errand' })
  expect(instance).toMatchObject({ last_prompt_delivery_status: 'not-delivered', agent_asks: 'folder trust' })
  expect(instance.last_prompt_failure).toContain('"folder trust"')
  expect(await waitForSession(daemon, 'asker', (s) => s.idle_reason === 'agent-asks')).toBeDefined()
  expect(await keysIn(keys)).toEqual([])

  await daemon.client.call('SetConfigValue', { key: 'agent_gates', value: 'accept' })
  await waitForSession(daemon, 'asker', (s) => s.agent_asks === undefined, 15_000)
  expect(await keysIn(keys)).toEqual(['Down', 'Enter:Yes, I trust this folder'])
  await daemon.client.call('SendPrompt', { title: 'asker', prompt: 'second errand' })
  await waitFor(async () => (await keysIn(keys)).join('').includes('second errand') || undefined)
})
