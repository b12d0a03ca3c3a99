import { describe, expect, it } from 'vitest'
import { applyFrame } from '@svc/protocol'
import { sampleFleet, sampleSession } from '../sample.js'
import { moveSelection, sessionRows, visibleWindow, type Row } from './rows.js'

const names = (rows: Row[]) => rows.map((row) => (row.kind === 'group' ? `[${row.name} (${row.count})]` : row.session.title))

// The order itself is @svc/protocol's (fleet.test.ts): here, how it becomes rows to move through.
describe('rows', () => {
  const fleet = applyFrame(
    sampleFleet([
      sampleSession({ title: 'zebra', repo_path: '/src/shop' }),
      sampleSession({ title: 'old', repo_path: '/src/shop', liveness_name: 'archived' }),
      sampleSession({ title: 'apple', repo_path: '/src/shop' }),
      sampleSession({ title: 'kiwi', repo_path: '/src/blog', program: 'codex' }),
    ]),
    { type: 'session.attention', seq: 1, data: { id: 'id-zebra', title: 'zebra', repo_id: 'r', reason: 'settled' } },
  )

  it('heads each group with its name and count, and carries each session its mark', () => {
    expect(names(sessionRows(fleet, { filter: '', attentionFirst: true }))).toEqual(['[needs you (1)]', 'zebra', '[blog (1)]', 'kiwi', '[shop (2)]', 'apple', 'old'])
    const row = sessionRows(fleet, { filter: '', attentionFirst: false }).find((each) => each.key === 'id-zebra')
    expect(row?.kind === 'session' && row.attention).toBe('settled')
  })

  it('moves the selection through sessions only, stopping at the ends', () => {
    const rows = sessionRows(fleet, { filter: '', attentionFirst: false })
    expect(moveSelection(rows, 'id-kiwi', 1)).toBe('id-apple')
    expect(moveSelection(rows, 'id-old', 1)).toBe('id-old')
    expect(moveSelection(rows, 'id-kiwi', -1)).toBe('id-kiwi')
    expect(moveSelection(rows, 'id-gone', 1)).toBe('id-kiwi')
  })

  it('scrolls the window to keep the selection in view', () => {
    const many = sampleFleet(Array.from({ length: 40 }, (_, index) => sampleSession({ title: `s${String(index).padStart(2, '0')}` })))
    const rows = sessionRows(many, { filter: '', attentionFirst: false })
    const window = visibleWindow(rows, 'id-s30', 10)
    expect(window).toHaveLength(10)
    expect(names(window)).toContain('s30')
    expect(names(visibleWindow(rows, 'id-s00', 10))[0]).toBe('[shop (40)]')
    expect(names(visibleWindow(rows, 'id-s39', 10)).at(-1)).toBe('s39')
  })
})
