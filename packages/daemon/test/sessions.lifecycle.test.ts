import { existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { tempHomes, waitFor, type TestDaemon, branches, git, paneText, session, tmuxSessions, waitForSession, worktrees, openSessionDaemon } from '@svc/test-kit'

const homes = tempHomes()
let daemon: TestDaemon
let repo: string

beforeAll(async () => ({ repo, daemon } = await openSessionDaemon(homes)))
afterAll(homes.release)

it('drives a fake agent through create, prompt, tabs, archive, restore and kill', async () => {
  // create: worktree and branch next to the repository, agent in the daemon's tmux
  const created = await daemon.client.call('CreateSession', {
    repo_path: repo,
    title: 'fix-parser',
    prompt: 'Please fix the parser edge case with empty input',
  })
  const instance = created.instance
  const worktree = `${repo}-fix-parser`
  const agentTmux = `svc_${instance.repo_id.slice(0, 8)}_fix-parser`
  expect(instance).toMatchObject({
    title: 'fix-parser',
    repo_path: repo,
    path: worktree,
    branch: 'agent/fix-parser',
    program: 'claude',
    backend: 'local',
    in_place: false,
    status_name: 'running',
    liveness_name: 'running',
    last_prompt_delivery_status: 'delivered',
  })
  expect(instance.tabs).toEqual([
    { id: expect.stringMatching(/^[0-9a-f]{16}$/), kind: 0, kind_name: 'agent', name: 'agent', tmux_name: agentTmux },
  ])
  expect(worktrees(repo)).toEqual([repo, worktree])
  expect(branches(repo)).toEqual(['agent/fix-parser', 'main'])
  expect(tmuxSessions(daemon.home)).toEqual([agentTmux])
  expect(paneText(daemon.home, agentTmux)).toContain('received: Please fix the parser edge case with empty input')
  const stored = JSON.parse(await readFile(join(daemon.home, 'sessions', `${instance.id}.json`), 'utf8'))
  expect(stored).toMatchObject({ id: instance.id, title: 'fix-parser', branch_created: true })
  expect(stored).not.toHaveProperty('status_name')

  // the agent works, then settles: running, then ready with a reason
  const settled = await waitForSession(daemon, 'fix-parser', (s) => s.liveness_name === 'ready')
  expect(settled.idle_reason).toBe('settled-after-pane-change')
  expect(Date.parse(settled.last_pane_churn_at as string)).toBeGreaterThan(Date.parse(instance.last_prompt_attempt_at as string))

  // a second prompt
  const sent = await daemon.client.call('SendPrompt', { title: 'fix-parser', prompt: 'Now add a regression test for it' })
  expect(sent).toEqual({ ok: true, status: 'delivered' })
  await waitFor(() => paneText(daemon.home, agentTmux).includes('received: Now add a regression test for it'))

  // tabs: a shell and a process tab get their own tmux sessions; a web tab has none
  const shell = await daemon.client.call('CreateTab', { title: 'fix-parser' })
  const logs = await daemon.client.call('CreateTab', { title: 'fix-parser', command: 'sleep 300', name: 'dev server' })
  const web = await daemon.client.call('CreateTab', { title: 'fix-parser', kind: 'web', port: 5173 })
  expect(shell).toEqual({ id: expect.any(String), name: 'shell', tmux_name: `${agentTmux}__shell` })
  expect(logs).toEqual({ id: expect.any(String), name: 'dev-server', tmux_name: `${agentTmux}__dev-server` })
  expect(web).toEqual({ id: expect.any(String), name: 'web' })
  expect(tmuxSessions(daemon.home)).toEqual([agentTmux, `${agentTmux}__dev-server`, `${agentTmux}__shell`])
  expect((await session(daemon, 'fix-parser')).tabs.map((tab) => [tab.name, tab.kind_name, tab.web_proxied])).toEqual([
    ['agent', 'agent', undefined],
    ['shell', 'shell', undefined],
    ['dev-server', 'process', undefined],
    ['web', 'web', true],
  ])

  // archive: tmux torn down, worktree moved under the archive, record kept
  const archived = await daemon.client.call('ArchiveSession', { title: 'fix-parser' })
  const archivedPath = join(daemon.home, 'archived', instance.repo_id, 'fix-parser')
  expect(archived).toEqual({ ok: true, archived_path: archivedPath })
  expect(tmuxSessions(daemon.home)).toEqual([])
  expect(existsSync(worktree)).toBe(false)
  expect(statSync(archivedPath).isDirectory()).toBe(true)
  expect(worktrees(repo)).toEqual([repo, archivedPath])
  expect(branches(repo)).toEqual(['agent/fix-parser', 'main'])
  expect(await session(daemon, 'fix-parser')).toMatchObject({ status_name: 'archived', liveness_name: 'archived', archived_path: archivedPath })
  // A local archive is a directory, not a pushed ref.
  expect(await session(daemon, 'fix-parser')).not.toHaveProperty('archived_ref')

  // restore: back next to the repository, agent and tabs respawned
  expect(await daemon.client.call('RestoreArchived', { title: 'fix-parser' })).toEqual({ ok: true, worktree_path: worktree })
  // Read at once: a poll tick or two later the respawned agent may have settled to ready.
  const restored = await session(daemon, 'fix-parser')
  expect(worktrees(repo)).toEqual([repo, worktree])
  expect(branches(repo)).toEqual(['agent/fix-parser', 'main'])
  expect(git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('agent/fix-parser')
  expect(tmuxSessions(daemon.home)).toEqual([agentTmux, `${agentTmux}__dev-server`, `${agentTmux}__shell`])
  expect(restored).toMatchObject({ liveness_name: 'running', path: worktree })
  expect(restored).not.toHaveProperty('archived_path')
  expect(restored).not.toHaveProperty('last_pane_churn_at')
  await waitForSession(daemon, 'fix-parser', (s) => s.liveness_name === 'ready')

  // kill: tmux, worktree, the daemon's branch and the record are gone; the repository stays
  expect(await daemon.client.call('KillSession', { title: 'fix-parser' })).toEqual({ ok: true })
  expect(tmuxSessions(daemon.home)).toEqual([])
  expect(existsSync(worktree)).toBe(false)
  expect(worktrees(repo)).toEqual([repo])
  expect(branches(repo)).toEqual(['main'])
  expect(existsSync(join(daemon.home, 'sessions', `${instance.id}.json`))).toBe(false)
  expect((await daemon.client.call('Snapshot', {})).instances).toEqual([])
})

it('KillSession on an archived session removes the archived worktree and the branch', async () => {
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'shelved' })
  const { archived_path } = await daemon.client.call('ArchiveSession', { title: 'shelved' })
  expect(worktrees(repo)).toEqual([repo, archived_path])
  expect(await daemon.client.call('KillSession', { title: 'shelved' })).toEqual({ ok: true })
  expect(existsSync(archived_path)).toBe(false)
  expect(existsSync(instance.path)).toBe(false)
  expect(worktrees(repo)).toEqual([repo])
  expect(branches(repo)).toEqual(['main'])
  expect((await daemon.client.call('Snapshot', {})).instances).toEqual([])
})
