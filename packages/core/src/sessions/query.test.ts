import { describe, expect, it } from 'vitest'
import { LIVENESS_NAMES, Liveness, STATUS_NAMES, livenessName } from '@svc/protocol'
import { InvalidRequest } from '../errors.js'
import { selectSessions } from './query.js'

const row = (repo_id: string, title: string, status: number, extra: { liveness?: number; created_at?: string } = {}) => ({
  repo_id,
  title,
  status,
  created_at: extra.created_at ?? '2026-01-01T00:00:00Z',
  ...(extra.liveness === undefined ? {} : { liveness: extra.liveness }),
})

describe('selectSessions', () => {
  const rows = [
    row('bbb', 'zeta', 0),
    row('aaa', 'beta', 6, { created_at: '2026-03-01T00:00:00Z' }),
    row('aaa', 'alpha', 1, { liveness: Liveness['limit-reached'], created_at: '2026-02-01T00:00:00Z' }),
    row('bbb', 'eta', 2),
  ]

  it('orders by repo id, then title, when no filter is given', () => {
    expect(selectSessions(rows, {}).map((r) => r.title)).toEqual(['alpha', 'beta', 'eta', 'zeta'])
  })

  it('scopes by repo and applies live, statuses, created_after and limit together', () => {
    expect(selectSessions(rows, { repo_id: 'aaa' }).map((r) => r.title)).toEqual(['alpha', 'beta'])
    expect(selectSessions(rows, { live: true }).map((r) => r.title)).toEqual(['alpha', 'eta', 'zeta'])
    expect(selectSessions(rows, { statuses: ['archived', 'running'] }).map((r) => r.title)).toEqual(['beta', 'zeta'])
    expect(selectSessions(rows, { created_after: '2026-01-15T00:00:00+00:00' }).map((r) => r.title)).toEqual(['alpha', 'beta'])
    expect(selectSessions(rows, { limit: 1, live: true }).map((r) => r.title)).toEqual(['alpha'])
  })

  it('selects by the same derivation that names liveness_name, both ways', () => {
    const every = STATUS_NAMES.flatMap((_, status) =>
      [undefined, ...LIVENESS_NAMES.map((_, i) => i + 1), 42].map((liveness) =>
        row('r', `${status}-${liveness}`, status, liveness === undefined ? {} : { liveness }),
      ),
    )
    for (const word of LIVENESS_NAMES) {
      const selected = selectSessions(every, { statuses: [word] })
      expect(selected.length).toBeGreaterThan(0)
      for (const record of selected) expect(livenessName(record)).toBe(word)
      expect(selected.length).toBe(every.filter((record) => livenessName(record) === word).length)
    }
    const unnamed = every.filter((record) => livenessName(record) === '')
    expect(unnamed.length).toBeGreaterThan(0)
    expect(selectSessions(every, { statuses: [...LIVENESS_NAMES] })).toHaveLength(every.length - unnamed.length)
  })

  it('refuses bad filters before selecting', () => {
    expect(() => selectSessions(rows, { statuses: ['loading'] })).toThrow(InvalidRequest)
    expect(() => selectSessions(rows, { limit: 0 })).toThrow('positive integer')
    expect(() => selectSessions(rows, { created_after: '2026-01-01' })).toThrow('RFC 3339')
  })
})
