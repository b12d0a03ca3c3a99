import { randomBytes } from 'node:crypto'
import { basename } from 'node:path'
import { TabKind } from '@svc/protocol'
import { InvalidRequest, NotFound, Refused } from '../errors.js'
import type { TabRecord } from './record.js'

export function tabId(): string {
  return randomBytes(8).toString('hex')
}

/** Runs of characters outside [A-Za-z0-9_-] become "-". */
export function sanitizeTabName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '-')
}

/** `name`, or `name-2`, `name-3`… : the first one not in `taken`. */
export function unique(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name
  for (let n = 2; ; n++) if (!taken.has(`${name}-${n}`)) return `${name}-${n}`
}

export function defaultTabName(kind: number, command?: string): string {
  if (kind === TabKind.process && command) return basename(command.trim().split(/\s+/)[0] ?? '') || 'process'
  return kind === TabKind.web ? 'web' : kind === TabKind.editor ? 'editor' : 'shell'
}

export interface TabSelector {
  tab_id?: string
  tab_name?: string
  tab_index?: number
}

/** The tab a request names. `tab_id` wins and never falls back to name or index. */
export function findTab(tabs: readonly TabRecord[], selector: TabSelector, title: string): { tab: TabRecord; index: number } {
  const found = (index: number) => ({ tab: tabs[index] as TabRecord, index })
  if (selector.tab_id !== undefined) {
    const index = tabs.findIndex((tab) => tab.id === selector.tab_id)
    if (index === -1) throw new Refused(`session "${title}" has no tab with id ${selector.tab_id} (it may have been closed)`)
    return found(index)
  }
  if (selector.tab_name !== undefined) {
    const index = tabs.findIndex((tab) => tab.name === selector.tab_name)
    if (index === -1) throw new NotFound(`session "${title}" has no tab named "${selector.tab_name}"`)
    return found(index)
  }
  if (selector.tab_index !== undefined) {
    if (selector.tab_index < 0 || selector.tab_index >= tabs.length) {
      throw new NotFound(`session "${title}" has no tab at index ${selector.tab_index} (it has ${tabs.length})`)
    }
    return found(selector.tab_index)
  }
  throw new InvalidRequest('tab_id, tab_name or tab_index is required')
}
