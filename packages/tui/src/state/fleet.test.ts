import { describe, expect, it } from 'vitest'
import { sampleSession } from '../sample.js'
import { applyFrame, EMPTY_FLEET, needsResync, resynced, seen } from './fleet.js'

describe('fleet', () => {
  const otter = sampleSession({ title: 'otter' })
  const heron = sampleSession({ title: 'heron' })
  const fleet = resynced(EMPTY_FLEET, [otter, heron], [], [])

  it('applies session events: an update replaces the session, a kill removes it and its mark', () => {
    const updated = applyFrame(fleet, { type: 'session.updated', seq: 1, data: { ...otter, liveness_name: 'ready' } })
    expect(updated.sessions.get(otter.id)?.liveness_name).toBe('ready')
    expect(fleet.sessions.get(otter.id)?.liveness_name).toBe('running')
    const marked = applyFrame(updated, { type: 'session.attention', seq: 2, data: { id: otter.id, title: 'otter', repo_id: otter.repo_id, reason: 'settled' } })
    expect(marked.attention.get(otter.id)).toBe('settled')
    const killed = applyFrame(marked, { type: 'session.killed', seq: 3, data: { id: otter.id, title: 'otter', repo_id: otter.repo_id } })
    expect([...killed.sessions.keys()]).toEqual([heron.id])
    expect(killed.attention.size).toBe(0)
  })

  it('keeps attention marks of sessions that survive a resync, until seen', () => {
    const marked = applyFrame(fleet, { type: 'session.attention', seq: 1, data: { id: heron.id, title: 'heron', repo_id: heron.repo_id, reason: 'usage-limit' } })
    const again = resynced(marked, [heron], [], [])
    expect(again.attention.get(heron.id)).toBe('usage-limit')
    expect(seen(again, heron.id).attention.size).toBe(0)
  })

  it('asks for a resync on hello and on a project change only', () => {
    expect(needsResync({ type: 'hello', data: { boot_id: 'b', seq: 0 } })).toBe(true)
    expect(needsResync({ type: 'projects.changed', seq: 4 })).toBe(true)
    expect(needsResync({ type: 'task.removed', seq: 5, data: { id: 't' } })).toBe(false)
  })
})
