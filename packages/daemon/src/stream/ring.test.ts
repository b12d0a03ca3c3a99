import { describe, expect, it } from 'vitest'
import { ReplayRing } from './ring.js'

describe('the replay ring', () => {
  it('replays from any cursor it still holds and refuses the ones it dropped or never saw', () => {
    const ring = new ReplayRing(8)
    ring.push(Buffer.from('abcde'))
    ring.push(Buffer.from('fghij'))
    expect(ring.cursor).toBe(10)
    expect(ring.since(2)?.toString()).toBe('cdefghij')
    expect(ring.since(10)?.toString()).toBe('')
    expect(ring.since(1)).toBeUndefined()
    expect(ring.since(11)).toBeUndefined()
    ring.push(Buffer.from('klmnopqrstuvwxyz'))
    expect(ring.since(18)?.toString()).toBe('stuvwxyz')
    expect(ring.since(17)).toBeUndefined()
  })
})
