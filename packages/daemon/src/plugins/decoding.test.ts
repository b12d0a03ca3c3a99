import { expect, it } from 'vitest'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { SnapshotRequest, UpdateTaskRequest } from '@svc/protocol'
import { decodeErrorMessage } from './decoding.js'

const errorsOf = <T extends TSchema>(schema: T, value: unknown) => Compile(schema).Errors(value) as never

it('names the first unknown field, nested ones included', () => {
  expect(decodeErrorMessage(errorsOf(SnapshotRequest, { limt: 1 }))).toBe(
    'malformed JSON request body: json: unknown field "limt"',
  )
  expect(decodeErrorMessage(errorsOf(UpdateTaskRequest, { id: 'a', update: { nme: 'x' } }))).toBe(
    'malformed JSON request body: json: unknown field "nme"',
  )
})

it('names the field of a type mismatch', () => {
  expect(decodeErrorMessage(errorsOf(SnapshotRequest, { limit: 'x' }))).toBe(
    'malformed JSON request body: json: field "limit" must be integer',
  )
  expect(decodeErrorMessage(errorsOf(UpdateTaskRequest, { update: { enabled: 'yes' } }))).toBe(
    'malformed JSON request body: json: field "update.enabled" must be boolean',
  )
})
