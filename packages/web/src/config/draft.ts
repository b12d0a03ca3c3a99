import type { ConfigType } from '@svc/protocol/browser'

/**
 * What a key's editor holds while the user edits: a list key's items and a map key's
 * entries as rows (so a row just added, still empty, stays on screen), any other key's
 * text in the editor form GetConfig shows and SetConfigValue takes.
 */
export type Draft = { kind: 'text'; text: string } | { kind: 'list'; items: string[] } | { kind: 'map'; rows: Array<[string, string]> }

const LIST_TYPES: readonly ConfigType[] = ['list', 'env-names']

/** The editor for a value as GetConfig shows it: lists and maps are JSON there. */
export function draftOf(type: ConfigType, value: string): Draft {
  if (LIST_TYPES.includes(type)) return { kind: 'list', items: JSON.parse(value) as string[] }
  if (type === 'map') return { kind: 'map', rows: Object.entries(JSON.parse(value) as Record<string, string>) }
  return { kind: 'text', text: value }
}

/** The value to send, in the editor form: blank rows are left out. */
export function textOf(draft: Draft): string {
  switch (draft.kind) {
    case 'text':
      return draft.text
    case 'list':
      return JSON.stringify(draft.items.filter((item) => item.trim() !== ''))
    case 'map':
      return JSON.stringify(Object.fromEntries(draft.rows.filter(([key, value]) => key.trim() !== '' || value.trim() !== '')))
  }
}

export const DURATION_UNITS = { ms: 'milliseconds', s: 'seconds', m: 'minutes', h: 'hours' } as const
export type DurationUnit = keyof typeof DURATION_UNITS

/** A duration's amount and unit: the daemon shows `1500ms`, `30s`, `30m`, `2h`; bare digits are milliseconds. */
export function durationParts(text: string): { amount: string; unit: DurationUnit } {
  const match = /^(\d*)(ms|s|m|h)?$/.exec(text.trim())
  if (!match) return { amount: text, unit: 'ms' }
  return { amount: match[1] ?? '', unit: (match[2] as DurationUnit | undefined) ?? 'ms' }
}

export function durationText(amount: string, unit: DurationUnit): string {
  return `${amount.trim()}${unit}`
}
