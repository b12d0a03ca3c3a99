import { randomBytes } from 'node:crypto'
import { basename } from 'node:path'
import type { Static } from 'typebox'
import { CREATABLE_TAB_KINDS, TabKind, type CreateTabRequest, type CreateTabResponse, type CheckedRequestOf, excerpt, quote } from '@svc/protocol'
import { InvalidRequest, NotFound, Refused } from '../errors.js'
import type { SessionRecord, TabRecord } from './record.js'
import { agentTab, tabTmuxName, type Panes } from './runtime.js'
import { commandWords } from '../infra/command-words.js'

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
  if (kind === TabKind.process && command) return basename(commandWords(command)[0] ?? '') || 'process'
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
    if (index === -1) throw new Refused(`session ${quote(title)} has no tab with id ${excerpt(selector.tab_id)} (it may have been closed)`)
    return found(index)
  }
  if (selector.tab_name !== undefined) {
    const index = tabs.findIndex((tab) => tab.name === selector.tab_name)
    if (index === -1) throw new NotFound(`session ${quote(title)} has no tab named ${quote(selector.tab_name)}`)
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

/** The kind a CreateTab request asks for, refusing what cannot be created. */
export function tabKindOf(request: Static<typeof CreateTabRequest>): number {
  // `agent` and `process` are named kinds but not creatable ones: a process tab is asked
  // for by `command` alone, as the API document has it.
  if (!request.kind) return request.command && !request.shell ? TabKind.process : TabKind.shell
  const kind = request.kind
  if (kind === 'shell') return TabKind.shell
  if (kind === 'web') {
    if (!request.url === (request.port === undefined)) throw new InvalidRequest('a web tab needs exactly one of url or port')
    if (request.port !== undefined && (request.port < 1 || request.port > 65535)) throw new InvalidRequest(`port ${request.port} is out of range`)
    if (request.url && !/^https?:\/\//.test(request.url)) throw new InvalidRequest(`url ${quote(request.url)} must start with http:// or https://`)
    return TabKind.web
  }
  if (kind === 'editor') {
    if (request.url || request.port !== undefined) throw new InvalidRequest('an editor tab serves the worktree; it takes no url or port')
    return TabKind.editor
  }
  throw new InvalidRequest(
    `tab kind ${quote(kind)} cannot be created; kind is one of ${CREATABLE_TAB_KINDS.join(', ')}, and a process tab is asked for with command and no kind`,
  )
}

/** Adds a tab to the roster and starts its process (web tabs have none). */
export async function openTab(
  record: SessionRecord,
  kind: number,
  request: Static<typeof CreateTabRequest>,
  panes: Panes,
): Promise<Static<typeof CreateTabResponse>> {
  if (kind === TabKind.editor) {
    panes.editor()
    // A session's editor has the session's preview origin: a second one would share it.
    const editor = record.tabs.find((tab) => tab.kind === TabKind.editor)
    if (editor) throw new Refused(`session ${quote(record.title)} has an editor tab already (${quote(editor.name)}); it serves the whole worktree`)
  }
  const names = new Set(record.tabs.map((tab) => tab.name))
  const name = unique(sanitizeTabName(request.name || defaultTabName(kind, request.command)) || 'tab', names)
  const tab: TabRecord = { id: tabId(), kind, name }
  if (kind === TabKind.web) tab.url = request.url || `http://localhost:${request.port}`
  if (kind === TabKind.process) tab.command = request.command
  if (kind !== TabKind.web) {
    // A renamed tab keeps its tmux session, so tmux names are made unique on their own.
    const tmuxNames = new Set(record.tabs.map((existing) => existing.tmux_name ?? ''))
    tab.tmux_name = unique(tabTmuxName(agentTab(record).tmux_name as string, name), tmuxNames)
    await panes.spawnTab(record, tab)
  }
  record.tabs.push(tab)
  return { id: tab.id, name: tab.name, tmux_name: kind === TabKind.editor ? undefined : tab.tmux_name }
}

export async function closeTab(record: SessionRecord, selector: TabSelector, panes: Panes): Promise<string> {
  const { tab, index } = findTab(record.tabs, selector, record.title)
  if (index === 0) throw new Refused('the agent tab cannot be closed; kill the session instead')
  await panes.stopTabs([tab])
  record.tabs.splice(index, 1)
  return tab.name
}

const RENAMABLE: readonly number[] = [TabKind.web, TabKind.process, TabKind.editor]

export function renameTab(record: SessionRecord, request: CheckedRequestOf<'RenameTab'>): string {
  const { tab } = findTab(record.tabs, request, record.title)
  if (!RENAMABLE.includes(tab.kind)) {
    throw new Refused(`only web, process and editor tabs can be renamed; "${tab.name}" is a ${tab.kind === 0 ? 'agent' : 'shell'} tab`)
  }
  const others = new Set(record.tabs.filter((other) => other !== tab).map((other) => other.name))
  tab.name = unique(sanitizeTabName(request.new_name), others)
  return tab.name
}

export function moveTab(record: SessionRecord, request: CheckedRequestOf<'ReorderTab'>): { name: string; index: number } {
  const { tab, index } = findTab(record.tabs, request, record.title)
  if (index === 0) throw new Refused('index 0 is the agent tab; it cannot be moved')
  const to = request.new_index
  if (to < 1 || to >= record.tabs.length) {
    throw new Refused(`new_index must be from 1 to ${record.tabs.length - 1}; index 0 is the agent tab`)
  }
  record.tabs.splice(index, 1)
  record.tabs.splice(to, 0, tab)
  return { name: tab.name, index: to }
}
