import { describe, expect, it } from 'vitest'
import { Value } from 'typebox/value'
import { DELIVERY_STATUSES, IDLE_REASONS, LIVENESS_NAMES, STATUS_NAMES, TAB_KIND_NAMES, livenessName, statusName, tabKindName } from '../vocab.js'
import { Session, SnapshotResponse } from './sessions.js'
import { Task } from './tasks.js'

/** The schema of one field of an object schema, as it is published. */
const field = (schema: unknown, name: string) => (schema as { properties: Record<string, unknown> }).properties[name]

describe('fixed vocabularies in the published schemas', () => {
  it('carry enums: twins with "", the other words closed', () => {
    expect(field(Session, 'status_name')).toMatchObject({ enum: [...STATUS_NAMES, ''] })
    expect(field(Session, 'liveness_name')).toMatchObject({ enum: [...LIVENESS_NAMES, ''] })
    expect(field(Session, 'idle_reason')).toMatchObject({ enum: [...IDLE_REASONS] })
    expect(field(Session, 'last_prompt_delivery_status')).toMatchObject({ enum: [...DELIVERY_STATUSES] })
    expect(field((field(Session, 'tabs') as { items: unknown }).items, 'kind_name')).toMatchObject({ enum: [...TAB_KIND_NAMES, ''] })
    expect(field(Task, 'arming')).toMatchObject({ enum: ['armed', 'watching', 'disabled', 'unschedulable'] })
    expect(field(Task, 'on_complete')).toMatchObject({ enum: ['', 'archive', 'kill'] })
    expect(JSON.parse(JSON.stringify(Session))).toMatchObject({ additionalProperties: false })
  })

  it('accept the "" twin of an unknown integer, and refuse a word outside the list', () => {
    const unknown = { status: 42, liveness: 9 }
    const twins = { status_name: statusName(unknown.status), liveness_name: livenessName(unknown), kind_name: tabKindName(17) }
    expect(twins).toEqual({ status_name: '', liveness_name: '', kind_name: '' })
    expect(Value.Check(field(Session, 'status_name') as never, twins.status_name)).toBe(true)
    expect(Value.Check(field(Session, 'liveness_name') as never, twins.liveness_name)).toBe(true)
    expect(Value.Check(field(Session, 'status_name') as never, 'sleeping')).toBe(false)
    expect(Value.Check(field(Session, 'idle_reason') as never, '')).toBe(false)
    expect(Value.Check(SnapshotResponse, { instances: [], boot_id: 'b', extra: 1 })).toBe(false)
  })
})
