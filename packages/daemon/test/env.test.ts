import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { dumpEnvCommand, envDump, tempHomes, type TestDaemon, FAKE_AGENT, makeRepo, startSessionDaemon } from '@svc/test-kit'

const homes = tempHomes()
let dir: string
let repo: string

const DAEMON_ENV = {
  SVC_TEST_SECRET: 'hunter2',
  PASSED_NAME: 'passed-through',
  ANTHROPIC_API_KEY: 'sk-ant-test',
  OPENAI_API_KEY: 'sk-openai-test',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  LC_TEST_LOCALE: 'kept',
  GH_TOKEN: 'gh-token',
}

beforeAll(async () => {
  dir = await homes.make()
  repo = await makeRepo(dir)
})
afterAll(homes.release)

async function daemonWith(env: Record<string, string>, settings: Record<string, unknown> = {}): Promise<TestDaemon> {
  const home = join(await homes.make(), 'svc')
  return startSessionDaemon({
    home,
    env: { ...DAEMON_ENV, ...env },
    settings: { session_env_passthrough: ['PASSED_NAME'], ...settings },
  })
}


it('gives panes the allowlist, the agent\'s own names and passthrough names, never other secrets', async () => {
  const daemon = await daemonWith({})
  const claudeDump = join(dir, 'claude.json')
  await daemon.client.call('SetConfigValue', {
    key: 'program_overrides.claude',
    value: `node ${FAKE_AGENT} --env-dump ${claudeDump}`,
  })
  await daemon.client.call('CreateSession', { repo_path: repo, title: 'claude-env' })
  const claude = await envDump(claudeDump)
  expect(claude.PASSED_NAME).toBe('passed-through')
  expect(claude.ANTHROPIC_API_KEY).toBe('sk-ant-test')
  expect(claude.LC_TEST_LOCALE).toBe('kept')
  expect(claude.GH_TOKEN).toBe('gh-token')
  expect(claude.PATH).toBe(process.env.PATH)
  expect(claude.SVC_SESSION_TITLE).toBe('claude-env')
  expect(claude).not.toHaveProperty('SVC_TEST_SECRET')
  expect(claude).not.toHaveProperty('AWS_SECRET_ACCESS_KEY')
  expect(claude).not.toHaveProperty('OPENAI_API_KEY')

  // A command line that is no known agent gets no agent keys at all.
  const plainDump = join(dir, 'plain.json')
  await daemon.client.call('CreateSession', { repo_path: repo, title: 'plain-env', program: `node ${FAKE_AGENT} --env-dump ${plainDump}` })
  const plain = await envDump(plainDump)
  expect(plain.PASSED_NAME).toBe('passed-through')
  expect(plain).not.toHaveProperty('ANTHROPIC_API_KEY')
  expect(plain).not.toHaveProperty('SVC_TEST_SECRET')

  // Shell and process tabs get the same filter.
  const tabDump = join(dir, 'tab.json')
  await daemon.client.call('CreateTab', { title: 'claude-env', command: dumpEnvCommand(tabDump) })
  const tab = await envDump(tabDump)
  expect(tab.PASSED_NAME).toBe('passed-through')
  expect(tab.ANTHROPIC_API_KEY).toBe('sk-ant-test')
  expect(tab).not.toHaveProperty('SVC_TEST_SECRET')

  // A passthrough change applies to the next pane, without a restart.
  await daemon.client.call('SetConfigValue', { key: 'session_env_passthrough', value: 'SVC_TEST_SECRET' })
  const laterDump = join(dir, 'later.json')
  await daemon.client.call('CreateSession', { repo_path: repo, title: 'later-env', program: `node ${FAKE_AGENT} --env-dump ${laterDump}` })
  const later = await envDump(laterDump)
  expect(later.SVC_TEST_SECRET).toBe('hunter2')
  expect(later).not.toHaveProperty('PASSED_NAME')
})

it('passes a cloud group only when the agent\'s provider-selecting variable is set', async () => {
  const daemon = await daemonWith({ CLAUDE_CODE_USE_BEDROCK: '1' })
  const dump = join(dir, 'bedrock.json')
  await daemon.client.call('SetConfigValue', { key: 'program_overrides.claude', value: `node ${FAKE_AGENT} --env-dump ${dump}` })
  await daemon.client.call('CreateSession', { repo_path: repo, title: 'bedrock' })
  const claude = await envDump(dump)
  expect(claude.AWS_SECRET_ACCESS_KEY).toBe('aws-secret')
  expect(claude.CLAUDE_CODE_USE_BEDROCK).toBe('1')
  expect(claude).not.toHaveProperty('SVC_TEST_SECRET')
})

it('points the agent at an account\'s credential home', async () => {
  const daemon = await daemonWith({})
  const account = join(daemon.home, 'accounts', 'claude', 'work')
  await mkdir(account, { recursive: true })
  const dump = join(dir, 'account.json')
  await daemon.client.call('SetConfigValue', { key: 'program_overrides.claude', value: `node ${FAKE_AGENT} --env-dump ${dump}` })
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'work-account', account: 'work' })
  expect(instance.account).toBe('work')
  expect((await envDump(dump)).CLAUDE_CONFIG_DIR).toBe(account)
})
