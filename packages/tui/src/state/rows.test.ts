import { describe, expect, it } from 'vitest'
import { sampleSession } from '../sample.js'
import { applyFrame, EMPTY_FLEET, resynced } from './fleet.js'
import { moveSelection, sessionRows, visibleWindow, type Row } from './rows.js'

const names = (rows: Row[]) => rows.map((row) => (row.kind === 'group' ? `[${row.name}]` : row.session.title))

describe('rows', () => {
  const fleet = resynced(
    EMPTY_FLEET,
    [
      sampleSession({ title: 'zebra', repo_path: '/src/shop' }),
      sampleSession({ title: 'old', repo_path: '/src/shop', liveness_name: 'archived' }),
      sampleSession({ title: 'apple', repo_path: '/src/shop' }),
      sampleSession({ title: 'kiwi', repo_path: '/src/blog', program: 'codex' }),
    ],
    [],
    [],
  )
  const marked = applyFrame(fleet, { type: 'session.attention', seq: 1, data: { id: 'id-zebra', title: 'zebra', repo_id: 'r', reason: 'settled' } })

  it('groups by project, projects by name, archived sessions last', () => {
    expect(names(sessionRows(fleet, { filter: '', attentionFirst: false }))).toEqual(['[blog]', 'kiwi', '[shop]', 'apple', 'zebra', 'old'])
  })

  it('puts sessions that need their user first on request, marked either way', () => {
    expect(names(sessionRows(marked, { filter: '', attentionFirst: true }))).toEqual(['[needs you]', 'zebra', '[blog]', 'kiwi', '[shop]', 'apple', 'old'])
    const row = sessionRows(marked, { filter: '', attentionFirst: false }).find((each) => each.key === 'id-zebra')
    expect(row?.kind === 'session' && row.attention).toBe('settled')
  })

  it('filters on every word, in title, project, program or state', () => {
    expect(names(sessionRows(fleet, { filter: 'codex', attentionFirst: false }))).toEqual(['[blog]', 'kiwi'])
    expect(names(sessionRows(fleet, { filter: 'SHOP archived', attentionFirst: false }))).toEqual(['[shop]', 'old'])
    expect(sessionRows(fleet, { filter: 'nothing-like-this', attentionFirst: false })).toEqual([])
  })

  it('moves the selection through sessions only, stopping at the ends', () => {
    const rows = sessionRows(fleet, { filter: '', attentionFirst: false })
    expect(moveSelection(rows, 'id-kiwi', 1)).toBe('id-apple')
    expect(moveSelection(rows, 'id-old', 1)).toBe('id-old')
    expect(moveSelection(rows, 'id-kiwi', -1)).toBe('id-kiwi')
    expect(moveSelection(rows, 'id-gone', 1)).toBe('id-kiwi')
  })

  it('scrolls the window to keep the selection in view', () => {
    const many = resynced(EMPTY_FLEET, Array.from({ length: 40 }, (_, index) => sampleSession({ title: `s${String(index).padStart(2, '0')}` })), [], [])
    const rows = sessionRows(many, { filter: '', attentionFirst: false })
    const window = visibleWindow(rows, 'id-s30', 10)
    expect(window).toHaveLength(10)
    expect(names(window)).toContain('s30')
    expect(names(visibleWindow(rows, 'id-s00', 10))[0]).toBe('[shop]')
    expect(names(visibleWindow(rows, 'id-s39', 10)).at(-1)).toBe('s39')
  })
})
