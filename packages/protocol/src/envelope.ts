import type { Static } from 'typebox'
import type { ErrorBody } from './schemas/common.js'

export type ErrorBodyT = Static<typeof ErrorBody>
export interface EnvelopeT<T> {
  data: T | null
  error: ErrorBodyT | null
}

export const MAX_BODY_BYTES = 16 * 1024 * 1024

/** Deeper than any request needs; a deeper body is a 400, so no walk meets unbounded nesting. */
export const MAX_BODY_DEPTH = 64

/** The `error.code` of a write that reached storage before a follow-up step failed. */
export const MUTATION_COMMITTED = 'mutation_committed'
