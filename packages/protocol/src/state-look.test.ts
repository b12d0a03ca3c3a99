import { expect, it } from 'vitest'
import { LIVENESS_NAMES } from './vocab.js'
import { stateLook } from './state-look.js'

it('gives every liveness a one-cell glyph, its own word and a tone; an operation in flight reads as its status', () => {
  const looks = LIVENESS_NAMES.map((name) => stateLook({ liveness_name: name, status_name: 'running' }))
  expect(looks.map((look) => look.word)).toEqual([...LIVENESS_NAMES])
  expect(looks.every((look) => [...look.glyph].length === 1)).toBe(true)
  expect(new Set(looks.map((look) => look.glyph)).size).toBe(LIVENESS_NAMES.length)
  expect(stateLook({ liveness_name: 'limit-reached', status_name: 'ready' })).toEqual({ glyph: '◆', word: 'limit-reached', tone: 'limit' })
  expect(stateLook({ liveness_name: '', status_name: 'loading' })).toEqual({ glyph: '…', word: 'loading', tone: 'busy' })
  expect(stateLook({ liveness_name: '', status_name: '' }).word).toBe('busy')
})
