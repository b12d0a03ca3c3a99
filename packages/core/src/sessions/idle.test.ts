import { describe, expect, it } from 'vitest'
import { idleReason } from './idle.js'
import { setState, type SessionRecord, type State } from './record.js'

function record(state: State, extra: Partial<SessionRecord> = {}): SessionRecord {
  const base = { id: 'i', title: 't', tabs: [], status: 0, created_at: '2026-01-01T00:00:00Z', ...extra } as unknown as SessionRecord
  setState(base, state)
  return base
}
const attempt = '2026-01-01T00:01:00Z'
const before = '2026-01-01T00:00:30Z'
const after = '2026-01-01T00:01:30Z'

describe('idle_reason, first rule that applies', () => {
  it('is none while an operation is in flight, whatever else holds', () => {
    expect(idleReason(record('limit-reached'), true)).toBeUndefined()
  })
  it('names a usage-limit wall', () => {
    expect(idleReason(record('limit-reached'), false)).toBe('usage-limit')
  })
  it('tells a lost or dead agent from one whose recovery gave up', () => {
    expect(idleReason(record('lost'), false)).toBe('process-exited')
    expect(idleReason(record('dead'), false)).toBe('process-exited')
    expect(idleReason(record('lost', { lost_restore_failure: { attempts: 6, error: 'x' } }), false)).toBe('restore-gave-up')
  })
  it('is none for sessions that are not ready, or never prompted', () => {
    expect(idleReason(record('running', { last_prompt_attempt_at: attempt, last_prompt_delivery_status: 'delivered' }), false)).toBeUndefined()
    expect(idleReason(record('archived'), false)).toBeUndefined()
    expect(idleReason(record('ready'), false)).toBeUndefined()
  })
  it('names a waiting recreate notice on a ready session, ahead of delivery evidence', () => {
    const notice = { recreate: { program: 'codex', notice: 'root_agent is codex' }, last_prompt_attempt_at: attempt, last_prompt_delivery_status: 'not-delivered' as const }
    expect(idleReason(record('ready', notice), false)).toBe('recreate-pending')
    expect(idleReason(record('running', notice), false)).toBeUndefined()
    expect(idleReason(record('limit-reached', notice), false)).toBe('usage-limit')
  })
  it('follows the last delivery and whether the pane changed after it', () => {
    const ready = (status: SessionRecord['last_prompt_delivery_status'], churn?: string) =>
      idleReason(record('ready', { last_prompt_attempt_at: attempt, last_prompt_delivery_status: status, ...(churn ? { last_pane_churn_at: churn } : {}) }), false)
    expect(ready('not-delivered', after)).toBe('prompt-not-delivered')
    expect(ready('sent-unverified')).toBe('delivery-unconfirmed')
    expect(ready('could-not-confirm', before)).toBe('delivery-unconfirmed')
    expect(ready('sent-unverified', after)).toBe('settled-after-pane-change')
    expect(ready('delivered', before)).toBe('no-pane-change-since-delivery')
    expect(ready('delivered', after)).toBe('settled-after-pane-change')
  })
})
