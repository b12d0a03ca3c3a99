import { expect, it } from 'vitest'
import { ago, deleteProjectWords, killWords, remoteWords, removeTaskWords } from './words.js'

it('says how long ago a time was in its largest whole unit, "just now" under a minute', () => {
  const now = Date.parse('2026-01-01T12:00:00Z')
  const before = (ms: number) => new Date(now - ms).toISOString()
  expect([0, 59_999, 60_000, 2 * 60_000 + 59_000, 3 * 3_600_000, 2 * 86_400_000].map((ms) => ago(before(ms), now))).toEqual([
    'just now',
    'just now',
    '1m ago',
    '2m ago',
    '3h ago',
    '2d ago',
  ])
  // A time ahead of this clock (another machine's) is not "in 5s": it is now.
  expect(ago(before(-5_000), now)).toBe('just now')
  expect(ago('not a time', now)).toBe('not a time')
})

it('says where a hook session runs and whether its remote answers; nothing for a local one', () => {
  expect(remoteWords({})).toBe('')
  expect(remoteWords({ remote_host: '10.0.0.2' })).toBe('on 10.0.0.2')
  expect(remoteWords({ remote_host: 'box.example', remote_unreachable: true })).toBe('on box.example, unreachable')
  expect(remoteWords({ remote_host: 'box.example', liveness_name: 'lost', remote_path: 'box.example:/home/me/svc-workspaces/otter' })).toBe(
    'on box.example, its work kept at box.example:/home/me/svc-workspaces/otter',
  )
  expect(remoteWords({ remote_host: 'docker', backend: 'docker' })).toBe('in docker')
  expect(remoteWords({ remote_host: 'docker', backend: 'docker', remote_unreachable: true })).toBe('in docker, unreachable')
  expect(remoteWords({ remote_host: 'gpu-box', backend: 'ssh' })).toBe('on gpu-box')
})

it('says what a kill deletes: the worktree and branch, the checkout kept in place, or the remote ended with delete_cmd', () => {
  const session = { path: '/src/shop-otter', branch: 'me/otter', in_place: false }
  expect(killWords(session)).toContain('its worktree /src/shop-otter and its branch me/otter are deleted')
  expect(killWords({ ...session, in_place: true, path: '/src/shop' })).toContain('the checkout /src/shop is kept')
  const remote = killWords({ ...session, in_place: true, remote_host: '10.0.0.2' })
  expect(remote).toContain("its work is pushed to its branch me/otter on origin first (a kill that cannot push it deletes nothing), then its session on 10.0.0.2 is ended, the repository's delete_cmd is run")
  expect(remote).not.toContain('/src/shop')
  expect(killWords({ ...session, remote_host: 'docker', backend: 'docker' })).toContain('on origin first (a kill that cannot push it deletes nothing), then its container is removed, and')
  expect(killWords({ ...session, remote_host: 'gpu-box', backend: 'ssh' })).toContain('then its workspace on gpu-box is removed, and')
})

it('says what removing a task stops: its schedule or its watch command', () => {
  expect(removeTaskWords({ name: 'nightly', cron_expr: '0 3 * * *', watch_cmd: '' })).toBe(
    'The task nightly is deleted and its schedule 0 3 * * * fires no more. Sessions it started are kept. This cannot be undone.',
  )
  expect(removeTaskWords({ name: 'ci', cron_expr: '', watch_cmd: 'tail -F log' })).toContain('its watch command tail -F log is stopped')
})

it("says what forgetting a project does to its sessions, and that the repository stays", () => {
  const sessions = [
    { title: 'otter', in_place: false, liveness_name: 'ready' },
    { title: 'old', in_place: false, liveness_name: 'archived' },
    { title: 'here', in_place: true, liveness_name: 'running' },
  ]
  expect(deleteProjectWords('/src/shop', sessions)).toBe(
    'Its sessions otter are archived (Restore brings them back), its in-place sessions here are killed (their checkout is kept), and it leaves the project list. The repository /src/shop itself is untouched.',
  )
  expect(deleteProjectWords('/src/shop', [])).toBe('It has no session to archive; it leaves the project list. The repository /src/shop itself is untouched.')
})
