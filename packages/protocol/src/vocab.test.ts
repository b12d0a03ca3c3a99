import { describe, expect, it } from 'vitest'
import { LIVENESS_NAMES, Liveness, STATUS_NAMES, Status, livenessName, statusName, tabKindName } from './vocab.js'

describe('string twins', () => {
  it('name every known integer and give "" for unknown ones', () => {
    expect(STATUS_NAMES.map((_, i) => statusName(i))).toEqual([...STATUS_NAMES])
    expect(statusName(Status.archived)).toBe('archived')
    expect(tabKindName(0)).toBe('agent')
    expect(tabKindName(4)).toBe('editor')
    for (const unknown of [-1, 7, 99, 1.5, Number.NaN]) expect(statusName(unknown)).toBe('')
    for (const unknown of [-1, 5, 99, 1.5]) expect(tabKindName(unknown)).toBe('')
    for (const unknown of [-1, 7, 99, 1.5]) expect(livenessName({ status: Status.running, liveness: unknown })).toBe('')
  })

  it('derive liveness from liveness when set', () => {
    expect(livenessName({ status: Status.ready, liveness: Liveness['limit-reached'] })).toBe('limit-reached')
    expect(livenessName({ status: Status.running, liveness: Liveness.lost })).toBe('lost')
    for (const [index, name] of LIVENESS_NAMES.entries()) expect(livenessName({ status: 0, liveness: index + 1 })).toBe(name)
  })

  it('fall back to the legacy status when liveness is unset', () => {
    expect(livenessName({ status: Status.running })).toBe('running')
    expect(livenessName({ status: Status.ready, liveness: 0 })).toBe('ready')
    expect(livenessName({ status: Status.lost })).toBe('lost')
    expect(livenessName({ status: Status.dead })).toBe('dead')
    expect(livenessName({ status: Status.archived })).toBe('archived')
    expect(livenessName({ status: Status.loading })).toBe('')
    expect(livenessName({ status: Status.deleting })).toBe('')
    expect(livenessName({ status: 42 })).toBe('')
  })
})
