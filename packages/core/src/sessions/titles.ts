import { InvalidRequest } from '../errors.js'
import { suggestName } from './names.js'
import { quote } from '@svc/protocol'

/** The title of every root session; no other session may take it. */
export const ROOT_TITLE = 'root'

const TITLE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

/** Titles name branches, directories and tmux sessions, so they keep to a safe alphabet. */
export function checkTitle(title: string): void {
  if (!TITLE.test(title)) {
    throw new InvalidRequest(
      `title ${quote(title)} is not usable: use 1-64 letters, digits, "-" or "_", starting with a letter or digit`,
    )
  }
}

/** A usable title from free text such as a task name. */
export function titleFrom(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[-_]+|-+$/g, '').slice(0, 56)
  return cleaned === '' ? 'session' : cleaned
}

/** The title a new session gets: the one asked for, the base with a suffix, or a suggestion. */
export function allocateTitle(request: { title?: string; title_base?: string }, taken: ReadonlySet<string>): string {
  if (request.title) {
    checkTitle(request.title)
    if (taken.has(request.title)) throw new InvalidRequest(`a session titled ${quote(request.title)} already exists in this repository`)
    return request.title
  }
  if (request.title_base) {
    const base = titleFrom(request.title_base)
    if (!taken.has(base)) return base
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`
  }
  return suggestName(taken)
}
