import { HttpError } from '../http-error.js'

/** A query parameter given at most once: a repeated one is a 400. */
export function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw new HttpError(400, `${name} must be given once`)
  return value
}

/** A query parameter that must be given, once and not empty: otherwise a 400 that says what it names. */
export function requiredParam(query: Record<string, unknown>, name: string, what: string): string {
  const value = single(query, name)
  if (value === undefined || value === '') throw new HttpError(400, `${name} is required (${what})`)
  return value
}
