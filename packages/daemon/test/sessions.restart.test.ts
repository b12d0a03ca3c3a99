import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { tempHomes, makeRepo, session, startSessionDaemon, tmux, tmuxSessions, waitForSession } from '@svc/test-kit'

const homes = tempHomes()
afterAll(homes.release)

it('keeps every session across a daemon restart, with ids and timestamps intact', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const home = join(dir, 'svc')
  const first = await startSessionDaemon({ home })
  for (const title of ['kept', 'respawned', 'shelved']) {
    await first.client.call('CreateSession', { repo_path: repo, title, prompt: `hello ${title}` })
  }
  await first.client.call('CreateTab', { title: 'kept', command: 'sleep 600', name: 'server' })
  await first.client.call('ArchiveSession', { title: 'shelved' })
  for (const title of ['kept', 'respawned']) await waitForSession(first, title, (s) => s.liveness_name === 'ready')
  const before = await first.client.call('Snapshot', {})
  const keptPid = tmux(home, 'display-message', '-p', '-t', `=${before.instances[0]?.tabs[0]?.tmux_name}:`, '#{pane_pid}')
  expect(await first.stop()).toBe(0)

  // While the daemon is down, one agent's tmux session disappears.
  const respawnedTmux = before.instances.find((s) => s.title === 'respawned')?.tabs[0]?.tmux_name as string
  tmux(home, 'kill-session', '-t', `=${respawnedTmux}`)

  const second = await startSessionDaemon({ home })
  const after = await second.client.call('Snapshot', {})
  expect(after.boot_id).not.toBe(before.boot_id)
  expect(after.instances.map((s) => s.id)).toEqual(before.instances.map((s) => s.id))
  for (const [index, instance] of after.instances.entries()) {
    const previous = before.instances[index] as (typeof before.instances)[number]
    expect(instance.created_at).toBe(previous.created_at)
    expect(instance.tabs.map((tab) => tab.id)).toEqual(previous.tabs.map((tab) => tab.id))
    expect(instance.boot_id).toBe(after.boot_id)
    // Re-attached and archived sessions are untouched; only the respawned one changed.
    if (instance.title !== 'respawned') expect(instance.updated_at).toBe(previous.updated_at)
  }
  const kept = await session(second, 'kept')
  expect(tmux(home, 'display-message', '-p', '-t', `=${kept.tabs[0]?.tmux_name}:`, '#{pane_pid}')).toBe(keptPid)
  expect(kept.tabs.map((tab) => tab.name)).toEqual(['agent', 'server'])
  expect(kept.last_prompt_delivery_status).toBe('delivered')

  const respawned = await session(second, 'respawned')
  expect(respawned.liveness_name).toMatch(/running|ready/)
  expect(respawned).not.toHaveProperty('last_pane_churn_at')
  expect(Date.parse(respawned.updated_at)).toBeGreaterThan(Date.parse(before.instances[1]?.updated_at as string))
  expect((await session(second, 'shelved')).liveness_name).toBe('archived')
  expect(tmuxSessions(home).filter((name) => name.includes('shelved'))).toEqual([])

  // Reads and idle polling never move updated_at.
  await new Promise((resolve) => setTimeout(resolve, 800))
  expect((await session(second, 'kept')).updated_at).toBe(kept.updated_at)
})

it('turns the status line off on a tmux server an older daemon left running, for its sessions too', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const home = join(dir, 'svc')
  const first = await startSessionDaemon({ home })
  const { instance } = await first.client.call('CreateSession', { repo_path: repo, title: 'older' })
  expect(await first.stop()).toBe(0)
  // Older daemons left tmux's default: a status line under every terminal.
  tmux(home, 'set-option', '-g', 'status', 'on')

  // The session is re-attached, not created: only the start can have turned it off.
  await startSessionDaemon({ home })
  expect(tmux(home, 'show-options', '-g', 'status').trim()).toBe('status off')
  expect(tmux(home, 'display-message', '-p', '-t', `=${instance.tabs[0]?.tmux_name}:`, '#{status}').trim()).toBe('off')
})

it('falls back to created_at for a stored record without updated_at, and ignores pr_info', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const home = join(dir, 'svc')
  const first = await startSessionDaemon({ home })
  const { instance } = await first.client.call('CreateSession', { repo_path: repo, title: 'legacy' })
  await first.client.call('ArchiveSession', { title: 'legacy' })
  await first.stop()
  const file = join(home, 'sessions', `${instance.id}.json`)
  const stored = JSON.parse(await readFile(file, 'utf8'))
  delete stored.updated_at
  delete stored.liveness
  await writeFile(file, JSON.stringify({ ...stored, pr_info: { url: 'https://example.com/pr/1' } }))

  const second = await startSessionDaemon({ home })
  const legacy = await session(second, 'legacy')
  expect(legacy.updated_at).toBe(legacy.created_at)
  expect(legacy).toMatchObject({ status: 6, status_name: 'archived', liveness_name: 'archived' })
  expect(legacy).not.toHaveProperty('liveness')
  expect(legacy).not.toHaveProperty('pr_info')
  expect((await second.client.call('Snapshot', { statuses: ['archived'] })).instances).toHaveLength(1)
})

it('loses no acknowledged session when killed with SIGKILL right after CreateSession', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const home = join(dir, 'svc')
  const first = await startSessionDaemon({ home })
  const { instance } = await first.client.call('CreateSession', { repo_path: repo, title: 'acked' })
  await first.stop('SIGKILL')
  const second = await startSessionDaemon({ home })
  expect((await session(second, 'acked')).id).toBe(instance.id)
})
