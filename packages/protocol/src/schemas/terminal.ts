import Type from 'typebox'
import { Closed, Request, SessionRef, Timestamp } from './common.js'

export const PreviewRequest = Request({ ...SessionRef, tab_id: Type.String(), lines: Type.Integer() })
export const PreviewResponse = Closed({
  text: Type.String(),
  cursor: Closed({ x: Type.Integer(), y: Type.Integer() }),
  rows: Type.Integer(),
  cols: Type.Integer(),
})

/**
 * `holder` names who holds the lease, so each holder renews and ends only its own; without
 * it the caller's connection holds it (defaults.md, "Corrections to earlier decisions").
 */
export const StatusPollLeaseRequest = Request({ ...SessionRef, holder: Type.String() })
export const PauseStatusPollResponse = Closed({ ok: Type.Literal(true), expires_at: Timestamp })
export const ResumeStatusPollResponse = Closed({ ok: Type.Literal(true) })
