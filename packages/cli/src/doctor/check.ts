/** One line of `svc doctor`: what was looked at, whether it is right, and what to do when it is not. */
export interface Check {
  name: string
  ok: boolean
  /** Right, but worth knowing (shown ⚠): an agent that is not installed, a daemon that is not running. */
  note?: boolean
  detail: string
  remedy?: string
}

export function pass(name: string, detail: string): Check {
  return { name, ok: true, detail }
}

export function fail(name: string, detail: string, remedy: string): Check {
  return { name, ok: false, detail, remedy }
}

export function note(name: string, detail: string, remedy?: string): Check {
  return { name, ok: true, note: true, detail, ...(remedy ? { remedy } : {}) }
}

/** The check's line as a person reads it: a mark, the name, the detail; then what to do. */
export function checkLine(check: Check): string {
  const mark = !check.ok ? '✗' : check.note ? '⚠' : '✓'
  const remedy = check.remedy && (!check.ok || check.note) ? `\n    → ${check.remedy}` : ''
  return `${mark} ${check.name}: ${check.detail}${remedy}`
}
