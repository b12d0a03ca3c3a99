import msParse from 'ms'
import type { ConfigType } from '@svc/protocol'
import { parseListenAddress } from '../net.js'
import { quote } from '@svc/protocol'

/**
 * How one kind of config value is typed by a person (`parse`), stored in config.json
 * (`decode`/`encode`, hand edits included) and shown back (`format`).
 * Every failure throws an Error whose message says what was expected.
 */
export interface ValueType<T> {
  readonly name: ConfigType
  parse(text: string): T
  decode(stored: unknown): T
  encode(value: T): unknown
  format(value: T): string
  /** Every word `parse` accepts (in its canonical spelling), only for a closed vocabulary. */
  readonly words?: readonly string[]
  /** A keyed type (`program_overrides.claude`): one entry's typed text checked, as config.json keeps it. */
  entry?(key: string, text: string): unknown
}

function describe(stored: unknown): string {
  return stored === null ? 'null' : Array.isArray(stored) ? 'an array' : `${typeof stored} ${JSON.stringify(stored)}`
}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message)
}

export const bool: ValueType<boolean> = {
  name: 'bool',
  parse(text) {
    const word = text.trim().toLowerCase()
    expect(word === 'true' || word === 'false', `expected true or false, got ${quote(text)}`)
    return word === 'true'
  },
  decode(stored) {
    expect(typeof stored === 'boolean', `expected true or false, got ${describe(stored)}`)
    return stored
  },
  encode: (value) => value,
  format: String,
  words: ['true', 'false'],
}

export function int(min: number, max: number): ValueType<number> {
  const check = (value: number, shown: string) =>
    expect(Number.isSafeInteger(value) && value >= min && value <= max, `expected an integer from ${min} to ${max}, got ${shown}`)
  return {
    name: 'int',
    parse(text) {
      expect(/^\s*[+-]?\d+\s*$/.test(text), `expected an integer from ${min} to ${max}, got ${quote(text)}`)
      const value = Number(text)
      check(value, `"${text}"`)
      return value
    },
    decode(stored) {
      expect(typeof stored === 'number', `expected an integer from ${min} to ${max}, got ${describe(stored)}`)
      check(stored, String(stored))
      return stored
    },
    encode: (value) => value,
    format: String,
  }
}

const UNITS: Array<[string, number]> = [
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
]

/** The exact editor form of a millisecond count: the largest unit that divides it. */
export function formatDuration(milliseconds: number): string {
  for (const [unit, size] of UNITS) if (milliseconds !== 0 && milliseconds % size === 0) return `${milliseconds / size}${unit}`
  return `${milliseconds}ms`
}

/** Durations are `1500ms`, `30m`, `2h` (anything `ms` reads) or integer milliseconds. */
export function duration(minMs: number): ValueType<number> {
  const hint = `expected a duration of at least ${formatDuration(minMs)} such as 1500ms, 30s or 30m`
  const parse = (text: string): number => {
    const trimmed = text.trim()
    const value = /^\d+$/.test(trimmed) ? Number(trimmed) : msParse(trimmed as msParse.StringValue)
    expect(typeof value === 'number' && Number.isSafeInteger(value) && value >= minMs, `${hint}, got ${quote(text)}`)
    return value
  }
  return {
    name: 'duration',
    parse,
    decode(stored) {
      if (typeof stored === 'number') return parse(String(stored))
      expect(typeof stored === 'string', `${hint}, got ${describe(stored)}`)
      return parse(stored)
    },
    encode: formatDuration,
    format: formatDuration,
  }
}

export function string(check: (value: string) => void = () => {}): ValueType<string> {
  return {
    name: 'string',
    parse(text) {
      check(text)
      return text
    },
    decode(stored) {
      expect(typeof stored === 'string', `expected a string, got ${describe(stored)}`)
      check(stored)
      return stored
    },
    encode: (value) => value,
    format: (value) => value,
  }
}

/** One word of a closed vocabulary, such as a backend name. */
export function word(words: readonly string[]): ValueType<string> {
  const check = (value: string) => expect(words.includes(value), `expected one of ${words.join(', ')}, got ${quote(value)}`)
  return { ...string(check), words }
}

export const address: ValueType<string> = {
  ...string((text) => {
    if (text !== '') parseListenAddress(text)
  }),
  name: 'address',
}

/** A JSON array, or comma-separated words; empty text is the empty list. */
function parseListText(text: string): unknown {
  const trimmed = text.trim()
  if (trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed)
    } catch {
      throw new Error(`expected a JSON array or comma-separated values, got ${quote(text)}`)
    }
  }
  return trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim())
}

export function list(item: (value: string) => void, name: ConfigType = 'list'): ValueType<string[]> {
  const decode = (stored: unknown): string[] => {
    expect(Array.isArray(stored), `expected a list of strings, got ${describe(stored)}`)
    return stored.map((entry) => {
      expect(typeof entry === 'string', `expected a list of strings, got an item ${describe(entry)}`)
      item(entry)
      return entry
    })
  }
  return {
    name,
    parse: (text) => decode(parseListText(text)),
    decode,
    encode: (value) => value,
    format: (value) => JSON.stringify(value),
  }
}

export const envNames = list((name) => {
  expect(
    /^[A-Za-z_][A-Za-z0-9_]*$/.test(name),
    `${quote(name)} is not an exact environment variable name (letters, digits and _; no wildcards)`,
  )
}, 'env-names')

export function map(entry: (value: string, key: string) => void = () => {}): ValueType<Record<string, string>> {
  const decode = (stored: unknown): Record<string, string> => {
    expect(
      typeof stored === 'object' && stored !== null && !Array.isArray(stored),
      `expected a JSON object of strings, got ${describe(stored)}`,
    )
    for (const [key, value] of Object.entries(stored)) {
      expect(typeof value === 'string', `expected a string for ${quote(key)}, got ${describe(value)}`)
      entry(value, key)
    }
    return { ...(stored as Record<string, string>) }
  }
  return {
    name: 'map',
    parse(text) {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        throw new Error(`expected a JSON object such as {"claude":"claude --model opus"}, got ${quote(text)}`)
      }
      return decode(parsed)
    },
    decode,
    encode: (value) => value,
    format: (value) => JSON.stringify(value),
    entry(key, text) {
      decode({ [key]: text })
      return text
    },
  }
}
