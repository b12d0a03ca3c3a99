import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempHomes, type TestDaemon } from '@svc/test-kit'
import { git, openSessionDaemon, tmux, waitForSession } from '@svc/test-kit'

// Fields kept for older clients (defaults.md): additive, beside the fields that replaced them.

const homes = tempHomes()
let daemon: TestDaemon
let repo: string

beforeAll(async () => ({ repo, daemon } = await openSessionDaemon(homes)))
afterAll(homes.release)

describe('the session object', () => {
  it('carries worktree {repo_path, path, branch, base_sha}, the start commit even after HEAD moves', async () => {
    const head = git(repo, 'rev-parse', 'HEAD').trim()
    const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'based' })
    expect(instance.worktree).toEqual({ repo_path: repo, path: instance.path, branch: 'agent/based', base_sha: head })

    git(repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'later')
    const inPlace = (await daemon.client.call('CreateSession', { repo_path: repo, title: 'here', in_place: true })).instance
    expect(inPlace.worktree).toEqual({ repo_path: repo, path: repo, branch: 'main', base_sha: git(repo, 'rev-parse', 'HEAD').trim() })
    expect(inPlace.worktree.base_sha).not.toBe(head)
    expect((await waitForSession(daemon, 'based', () => true)).worktree.base_sha).toBe(head)

    const { archived_path } = await daemon.client.call('ArchiveSession', { title: 'based' })
    expect((await waitForSession(daemon, 'based', () => true)).worktree).toMatchObject({ path: archived_path, base_sha: head })
  })

  it('offers archive on live sessions and restore on archived, lost and dead ones; handoff on live ones only', async () => {
    await daemon.client.call('CreateSession', { repo_path: repo, title: 'alive' })
    const { instance: doomed } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'doomed' })
    await daemon.client.call('CreateSession', { repo_path: repo, title: 'quitter' })
    await daemon.client.call('SendPrompt', { title: 'quitter', prompt: '/exit' })
    tmux(daemon.home, 'kill-session', '-t', `=${doomed.tabs[0]?.tmux_name}`)
    // Recovery would bring the lost one back; it is looked at while it is lost.
    const lost = await waitForSession(daemon, 'doomed', (s) => s.liveness_name === 'lost', 5_000)
    const dead = await waitForSession(daemon, 'quitter', (s) => s.liveness_name === 'dead')
    const live = await waitForSession(daemon, 'alive', (s) => s.liveness_name === 'ready')
    const archived = await waitForSession(daemon, 'based', (s) => s.liveness_name === 'archived')
    expect([live, archived, lost, dead].map((s) => s.lifecycle_action)).toEqual(['archive', 'restore', 'restore', 'restore'])
    expect([live, archived, lost, dead].map((s) => s.can_handoff)).toEqual([true, false, false, false])
    for (const instance of [live, archived, lost, dead]) expect(instance).toMatchObject({ can_kill: true, is_root: false })
  })

  it('lists every tab kind with whether CreateTab creates it by name', async () => {
    const { tab_kinds } = await waitForSession(daemon, 'alive', () => true)
    expect(tab_kinds).toEqual([
      { kind: 'agent', allowed: false },
      { kind: 'shell', allowed: true },
      { kind: 'process', allowed: false },
      { kind: 'web', allowed: true },
      { kind: 'editor', allowed: true },
    ])
    for (const { kind, allowed } of tab_kinds) {
      const reply = await daemon.post('/v1/CreateTab', { title: 'alive', kind, ...(kind === 'web' ? { port: 3000 } : {}) })
      // An editor needs code-server on PATH: the refusal then names it, not the kind.
      const refusedByKind = reply.status === 500 && reply.json.error.message.includes('cannot be created')
      expect(refusedByKind, kind).toBe(!allowed)
    }
  })
})

it('ListBackends labels each backend and states the default one\'s status', async () => {
  const backends = await daemon.client.call('ListBackends', { repo_path: repo })
  for (const backend of backends.backends) expect(backend.label.length).toBeGreaterThan(3)
  const fallback = backends.backends.find((backend) => backend.name === backends.default)
  expect(backends.default_status).toBe(fallback?.status)
})

describe('config', () => {
  // tier, tier_name, enum and source are checked with the rest of GetConfig in config.test.ts.
  it('GetConfig marks every entry settable and editable, and ranks it by an integer tier', async () => {
    const { entries } = await daemon.client.call('GetConfig')
    for (const entry of entries) expect(entry).toMatchObject({ settable: true, editable: true, tier: expect.any(Number) })
  })

  it('SetConfigValue answers result, and restart_notice for a key that waits for the next start', async () => {
    const now = await daemon.client.call('SetConfigValue', { key: 'limit_retry_interval', value: '45m' })
    expect(now).toMatchObject({ ok: true, result: { key: 'limit_retry_interval', value: now.value, applies: 'now' } })
    expect(now).not.toHaveProperty('restart_notice')

    const later = await daemon.client.call('SetConfigValue', { key: 'branch_prefix', value: 'later/' })
    expect(later.result).toEqual({ key: 'branch_prefix', value: 'later/', applies: 'next-start' })
    expect(later.restart_notice).toContain('next daemon start')

    // Unset keeps its own shape.
    expect(await daemon.client.call('UnsetConfigValue', { key: 'branch_prefix' })).not.toHaveProperty('result')
  })
})
