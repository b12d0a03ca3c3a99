import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { FAKE_AGENT, makeRepo, recordEvents, startSessionDaemon, tempHomes, tmux, tmuxSessions, waitFor, type TestDaemon } from '@svc/test-kit'

const homes = tempHomes()
afterAll(homes.release)

const startCommand = (daemon: TestDaemon, tmuxName: string) =>
  tmux(daemon.home, 'display-message', '-p', '-t', `=${tmuxName}:`, '#{pane_start_command}')
const roots = async (daemon: TestDaemon) =>
  (await daemon.client.call('Snapshot', {})).instances.filter((instance) => instance.title === 'root')
/** The root session of one project, once `accept` takes it. */
const rootOf = (daemon: TestDaemon, id: string, accept: (root: Awaited<ReturnType<typeof roots>>[number]) => boolean) =>
  waitFor(async () => (await roots(daemon)).find((root) => root.id === id && accept(root)), 30_000)

it('starts a root session per opted-in project, notices a root_agent change, and recreation clears the notice', { timeout: 120_000 }, async () => {
  const dir = await homes.make()
  const byPath = await makeRepo(dir, 'app')
  const byId = await makeRepo(dir, 'lib')
  const home = join(dir, 'svc')
  // Two agent kinds, told apart by their command lines.
  const settings = {
    program_overrides: { claude: `node ${FAKE_AGENT} --kind claude`, codex: `node ${FAKE_AGENT} --kind codex` },
  }
  const first = await startSessionDaemon({ home, settings })
  const lib = (await first.client.call('RegisterProject', { path: byId })).project
  const set = await first.client.call('SetConfigValue', { key: 'root_agents', value: JSON.stringify([byPath, lib.id]) })
  expect(set.result.applies).toBe('next-start')
  expect(await roots(first)).toEqual([])
  await first.stop()

  // Opted in by path and by repo id (the harness writes config.json at every start).
  const optedIn = { ...settings, root_agents: [byPath, lib.id] }
  const second = await startSessionDaemon({ home, settings: optedIn })
  const started = (await roots(second)).sort((a, b) => a.repo_path.localeCompare(b.repo_path))
  expect(started.map((root) => [root.repo_path, root.path, root.in_place, root.is_root, root.program])).toEqual([
    [byPath, byPath, true, true, 'claude'],
    [byId, byId, true, true, 'claude'],
  ])
  const app = started[0] as (typeof started)[number]
  expect(startCommand(second, app.tabs[0]?.tmux_name as string)).toContain('--kind claude')

  // The title is reserved: no other session takes it, a title base steps around it.
  const reserved = await second.post('/v1/CreateSession', { repo_path: byPath, title: 'root' })
  expect(reserved.json.error.message).toMatch(/the title "root" is reserved for root agent sessions/)
  const stepped = await second.client.call('CreateSession', { repo_path: byPath, title_base: 'root' })
  expect(stepped.instance).toMatchObject({ title: 'root-2', is_root: false })

  await second.stop()

  const third = await startSessionDaemon({ home, settings: { ...optedIn, root_agent: 'codex' } })
  const noticed = await rootOf(third, app.id, (root) => root.idle_reason === 'recreate-pending')
  expect(noticed).toMatchObject({ id: app.id, program: 'claude', idle_reason: 'recreate-pending' })
  expect(noticed?.recreate_notice).toMatch(/root_agent is codex, and this root session runs claude; recreate it with RestoreSession force_reap/)
  // The session was re-attached, not replaced: the notice waits for the user.
  expect(startCommand(third, app.tabs[0]?.tmux_name as string)).toContain('--kind claude')

  const feed = await recordEvents(third.client)
  await third.client.call('RestoreSession', { id: app.id, force_reap: true })
  const restored = await feed.next('session.restored', (frame) => frame.data.id === app.id)
  feed.close()
  expect(restored.data.program).toBe('codex')
  expect(restored.data).not.toHaveProperty('recreate_notice')
  expect(startCommand(third, app.tabs[0]?.tmux_name as string)).toContain('--kind codex')
  const recreated = await rootOf(third, app.id, (root) => root.liveness_name === 'ready')
  expect(recreated).toMatchObject({ is_root: true, program: 'codex' })
  expect(recreated.idle_reason).not.toBe('recreate-pending')

  // Deleting a project tears its root session down and drops the opt-in.
  await third.client.call('DeleteProject', { repo_id: lib.id })
  const rootAgents = (await third.client.call('GetConfig')).entries.find((entry) => entry.key === 'root_agents')
  expect(JSON.parse(rootAgents?.value as string)).toEqual([byPath])
  expect((await roots(third)).map((root) => root.repo_path)).toEqual([byPath])
  expect(tmuxSessions(home).filter((name) => name.endsWith('_root'))).toHaveLength(1)
  expect(JSON.parse(await readFile(third.paths.config, 'utf8')).root_agents).toEqual([byPath])
})

it('says in the config purposes what the root keys do', async () => {
  const dir = await homes.make()
  const daemon = await startSessionDaemon({ home: join(dir, 'svc') })
  const purposes = Object.fromEntries((await daemon.client.call('GetConfig')).entries.map((entry) => [entry.key, entry.purpose]))
  expect(purposes.root_agents).toBe(
    'Projects (root paths or repo ids) that get an in-place session titled "root" at daemon start, a title no other session may take; removing the project drops it from this list',
  )
  expect(purposes.root_agent).toBe(
    'Agent of root sessions ("" = default_program); at start, a root session running another agent gets a recreate notice (idle_reason recreate-pending) until RestoreSession with force_reap recreates it under this agent',
  )
  const refused = await daemon.post('/v1/SetConfigValue', { key: 'root_agents', value: '["relative/path"]' })
  expect(refused.json.error.message).toMatch(/is neither an absolute project path nor a repo id/)
})
