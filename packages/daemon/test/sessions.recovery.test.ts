import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { tempHomes, FAKE_AGENT, makeRepo, startSessionDaemon, tmux, tmuxSessions, waitForSession, worktrees } from '@svc/test-kit'

const homes = tempHomes()
afterEach(homes.release)

async function setUp(settings: Record<string, unknown> = {}) {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const daemon = await startSessionDaemon({ home: join(dir, 'svc'), settings })
  return { dir, repo, daemon }
}

it('turns sessions lost when the tmux server dies, and recovers them', async () => {
  const { repo, daemon } = await setUp()
  for (const title of ['one', 'two']) await daemon.client.call('CreateSession', { repo_path: repo, title })
  await daemon.client.call('CreateTab', { title: 'one' })
  tmux(daemon.home, 'kill-server')

  const lost = await waitForSession(daemon, 'one', (s) => s.liveness_name === 'lost', 5_000)
  expect(lost).toMatchObject({ status_name: 'lost', idle_reason: 'process-exited' })
  for (const title of ['one', 'two']) {
    const back = await waitForSession(daemon, title, (s) => s.liveness_name === 'running' || s.liveness_name === 'ready')
    expect(back).not.toHaveProperty('lost_restore_failure')
    expect(back).not.toHaveProperty('last_pane_churn_at')
  }
  expect(tmuxSessions(daemon.home)).toHaveLength(3)
})

it('gives up on a program that always fails, records why, and lets an explicit restore clear it', async () => {
  const { repo, daemon } = await setUp({ lost_restore_backoff: '100ms' })
  const switchable = join(repo, '..', 'agent-command')
  await writeFile(switchable, `node ${FAKE_AGENT}`)
  await daemon.client.call('CreateSession', { repo_path: repo, title: 'doomed', program: `sh -c "$(cat ${switchable})"` })
  await waitForSession(daemon, 'doomed', (s) => s.liveness_name === 'ready')

  // From now on the agent's command always fails at start.
  await writeFile(switchable, `node ${FAKE_AGENT} --fail-start`)
  tmux(daemon.home, 'kill-server')
  const gaveUp = await waitForSession(daemon, 'doomed', (s) => s.lost_restore_failure !== undefined, 30_000)
  expect(gaveUp).toMatchObject({ status_name: 'lost', liveness_name: 'lost', idle_reason: 'restore-gave-up' })
  expect(gaveUp.lost_restore_failure?.attempts).toBe(6)
  // tmux may report the pane dead a moment before it has the exit status.
  expect(gaveUp.lost_restore_failure?.error).toMatch(/^the agent exited( with status 1)? right after restart/)
  expect(gaveUp.lost_restore_failure?.error).not.toContain('Pane is dead')
  expect(gaveUp.lost_restore_failure?.error).not.toContain('\n')

  // No further automatic attempts once it gave up.
  const before = gaveUp.updated_at
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const still = await waitForSession(daemon, 'doomed', () => true)
  expect(still.updated_at).toBe(before)

  await writeFile(switchable, `node ${FAKE_AGENT}`)
  expect(await daemon.client.call('RestoreSession', { title: 'doomed' })).toEqual({ ok: true })
  const restored = await waitForSession(daemon, 'doomed', (s) => s.liveness_name === 'ready')
  expect(restored).not.toHaveProperty('lost_restore_failure')
  expect(restored).not.toHaveProperty('idle_reason')
})

it('reports an agent that exits as dead, and restores it on request', async () => {
  const { repo, daemon } = await setUp()
  await daemon.client.call('CreateSession', { repo_path: repo, title: 'quitter' })
  await daemon.client.call('SendPrompt', { title: 'quitter', prompt: '/exit' })
  const dead = await waitForSession(daemon, 'quitter', (s) => s.liveness_name === 'dead')
  expect(dead).toMatchObject({ status_name: 'dead', idle_reason: 'process-exited' })
  await expect(daemon.client.call('SendPrompt', { title: 'quitter', prompt: 'hello' })).rejects.toThrow(
    'session "quitter" is dead; restore it with RestoreSession first',
  )
  await daemon.client.call('RestoreSession', { title: 'quitter' })
  await waitForSession(daemon, 'quitter', (s) => s.liveness_name === 'ready')
})

it('refuses RestoreSession before admission when the boot id does not match, and live sessions without force_reap', async () => {
  const { repo, daemon } = await setUp()
  await daemon.client.call('CreateSession', { repo_path: repo, title: 'live' })
  const { boot_id } = await daemon.client.call('Snapshot', {})
  const panes = () => tmux(daemon.home, 'list-panes', '-a', '-F', '#{pane_pid}').trim()
  const before = panes()
  await expect(
    daemon.client.call('RestoreSession', { title: 'live', expected_daemon_boot_id: 'stale-boot', force_reap: true }),
  ).rejects.toThrow(`the daemon restarted (boot id ${boot_id}, expected stale-boot)`)
  await expect(daemon.client.call('RestoreSession', { title: 'live' })).rejects.toThrow('pass force_reap to replace its runtime')
  expect(panes()).toBe(before)
  await daemon.client.call('RestoreSession', { title: 'live', expected_daemon_boot_id: boot_id, force_reap: true })
  expect(panes()).not.toBe(before)
})

it('brings an archived session back with RestoreSession: worktree next to the repository, agent running', async () => {
  const { repo, daemon } = await setUp()
  const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: 'shelved' })
  const { archived_path } = await daemon.client.call('ArchiveSession', { title: 'shelved' })
  expect(tmuxSessions(daemon.home)).toEqual([])
  expect(await daemon.client.call('RestoreSession', { title: 'shelved' })).toEqual({ ok: true })
  expect(worktrees(repo)).toEqual([repo, instance.path])
  expect(existsSync(archived_path)).toBe(false)
  expect(tmuxSessions(daemon.home)).toEqual([instance.tabs[0]?.tmux_name])
  const restored = await waitForSession(daemon, 'shelved', (s) => s.liveness_name === 'ready')
  expect(restored).toMatchObject({ path: instance.path })
  expect(restored).not.toHaveProperty('archived_path')
})
