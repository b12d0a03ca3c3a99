import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { expect, it } from 'vitest'
import { TabKind } from '@svc/protocol'
import { setState, type SessionRecord } from './record.js'
import { sessionRecord } from './record.fixture.js'
import { WireCache } from './wire-cache.js'

function fleet() {
  const busy = new Set<string>()
  const records = new Map([['a', sessionRecord('a', 'alpha', 'running')], ['b', sessionRecord('b', 'beta', 'running')]])
  const cache = new WireCache('boot', records, (id) => busy.has(id))
  const snapshot = (filters = {}) => cache.snapshotJson(filters)
  const titles = (json: string) => (JSON.parse(json) as { instances: SessionWire[] }).instances
  return { busy, cache, records, snapshot, titles }
}
type SessionWire = { title: string; liveness_name: string; idle_reason?: string; tabs: unknown[] }

it('answers the very same text while nothing moved', () => {
  const { snapshot } = fleet()
  expect(snapshot()).toBe(snapshot())
})

it('shows a save, a lifecycle move, an operation in flight, an added and a removed session', () => {
  const { busy, cache, records, snapshot, titles } = fleet()
  const alpha = records.get('a') as SessionRecord
  snapshot()
  alpha.tabs.push({ id: 'a-shell', kind: TabKind.shell, name: 'shell', tmux_name: 'svc_alpha__shell' })
  cache.changed('a')
  expect(titles(snapshot())[0]?.tabs).toHaveLength(2)
  setState(alpha, 'dead')
  expect(titles(snapshot())[0]).toMatchObject({ liveness_name: 'dead', idle_reason: 'process-exited' })
  busy.add('a')
  expect(titles(snapshot())[0]?.idle_reason).toBeUndefined()
  busy.delete('a')
  expect(titles(snapshot())[0]?.idle_reason).toBe('process-exited')
  records.set('c', sessionRecord('c', 'gamma', 'running'))
  expect(titles(snapshot()).map((session) => session.title)).toEqual(['alpha', 'beta', 'gamma'])
  records.delete('b')
  cache.forget('b')
  expect(titles(snapshot()).map((session) => session.title)).toEqual(['alpha', 'gamma'])
})

it('keeps answers per filter set, each following the fleet', () => {
  const { records, snapshot, titles } = fleet()
  expect(titles(snapshot({ statuses: ['dead'] }))).toEqual([])
  expect(titles(snapshot())).toHaveLength(2)
  setState(records.get('b') as SessionRecord, 'dead')
  expect(titles(snapshot({ statuses: ['dead'] })).map((session) => session.title)).toEqual(['beta'])
  expect(() => snapshot({ statuses: ['sleepy'] })).toThrow(/unknown status/)
})

it('keeps no answer for filters longer than any real ones: a hostile body is not held past its answer', () => {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const { snapshot, titles } = fleet()
  gc()
  const before = process.memoryUsage().heapUsed
  for (let n = 0; n < 16; n++) expect(titles(snapshot({ repo_id: `${n}`.padEnd(1_000_000, 'x') }))).toEqual([])
  gc()
  expect(process.memoryUsage().heapUsed - before).toBeLessThan(4 * 1024 * 1024)
})
