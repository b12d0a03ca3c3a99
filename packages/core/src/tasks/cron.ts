import { CronExpressionParser, type CronExpression } from 'cron-parser'
import { quote } from '@svc/protocol'

/** A cron_expr judged: usable, malformed (refused on write), or well-formed but never firing (stored, reported). */
export type CronCheck =
  | { kind: 'ok'; expression: CronExpression }
  | { kind: 'invalid'; message: string }
  | { kind: 'never'; reason: string }

/** cron-parser's verdict on a day of month no listed month has (`0 0 30 2 *`). */
const NEVER_DAY = 'Invalid explicit day of month definition'

/**
 * Parsing costs a fraction of a millisecond; reads of 1,000 tasks must not pay it each
 * time. Only verdicts a stored task can have are kept: a malformed expression is refused
 * and never read again, and keeping those let any stream of bad requests fill the cache.
 */
const cache = new Map<string, CronCheck>()
const CACHE_LIMIT = 10_000

/**
 * Five fields in the daemon's local time zone (cron-parser's default zone). `seed` keys
 * the `H` (hashed) fields, so a task's jitter is the same on every parse.
 */
export function checkCron(expr: string, seed: string): CronCheck {
  const key = `${seed}\u0000${expr}`
  const cached = cache.get(key)
  if (cached) return cached
  const check = judge(expr, seed)
  if (check.kind === 'invalid') return check
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(key, check)
  return check
}

function judge(expr: string, seed: string): CronCheck {
  const fields = expr.trim().split(/\s+/).filter(Boolean)
  if (fields.length !== 5) {
    return {
      kind: 'invalid',
      message: `cron_expr ${quote(expr)} must have 5 fields (minute hour day-of-month month day-of-week), not ${fields.length}`,
    }
  }
  let expression: CronExpression
  try {
    expression = CronExpressionParser.parse(fields.join(' '), { hashSeed: seed })
  } catch (error) {
    const message = (error as Error).message
    if (message === NEVER_DAY) {
      return { kind: 'never', reason: `day of month ${fields[2]} never occurs in month ${fields[3]}` }
    }
    return { kind: 'invalid', message: `cron_expr ${quote(expr)} is not a valid cron expression: ${message}` }
  }
  try {
    expression.reset(new Date())
    expression.next()
  } catch (error) {
    return { kind: 'never', reason: `it never fires (${(error as Error).message})` }
  }
  return { kind: 'ok', expression }
}

/** The first occurrence strictly after `after`, or undefined when there is none. */
export function nextOccurrence(expression: CronExpression, after: Date): Date | undefined {
  expression.reset(after)
  try {
    return expression.next().toDate()
  } catch {
    return undefined
  }
}
