import type { Static } from 'typebox'
import { excerpt, quote, type PreviewRequest, type PreviewResponse } from '@svc/protocol'
import { InvalidRequest, NotFound } from '../errors.js'
import type { Tmux } from '../infra/tmux.js'
import type { SessionRecord } from './record.js'
import type { SessionTable } from './table.js'

/** One tab's terminal: the tmux session a stream attaches to. */
export interface TerminalTarget {
  sessionId: string
  tabId: string
  tmuxName: string
}

export interface TabChoice {
  /** The tab's ordinal; 0, the agent, when neither is given. */
  index?: number
  /** Wins over `index` and never falls back. */
  id?: string
}

/** The session a stream path names: `{id}` as a session id, else as a title (in `repoId` when given). */
export function streamedSession(table: SessionTable, id: string, repoId: string | undefined): SessionRecord {
  if (repoId === undefined && table.records.has(id)) return table.records.get(id) as SessionRecord
  return table.find({ title: id, ...(repoId === undefined ? {} : { repo_id: repoId }) })
}

/** The terminal of one tab; a stale `tab_id` or a tab without a terminal is NotFound. */
export function terminalOf(record: SessionRecord, choice: TabChoice): TerminalTarget {
  const index = choice.id !== undefined ? record.tabs.findIndex((tab) => tab.id === choice.id) : (choice.index ?? 0)
  const tab = record.tabs[index]
  if (!tab) {
    throw new NotFound(
      choice.id !== undefined
        ? `session ${quote(record.title)} has no tab with id ${excerpt(choice.id)} (it may have been closed)`
        : `session ${quote(record.title)} has no tab at index ${index} (it has ${record.tabs.length})`,
    )
  }
  if (!tab.tmux_name) throw new NotFound(`tab ${quote(tab.name)} of session ${quote(record.title)} has no terminal`)
  return { sessionId: record.id, tabId: tab.id, tmuxName: tab.tmux_name }
}

export async function preview(
  table: SessionTable,
  tmux: Tmux,
  request: Static<typeof PreviewRequest>,
): Promise<Static<typeof PreviewResponse>> {
  const lines = request.lines ?? 0
  if (lines < 0) throw new InvalidRequest(`lines must be 0 or more, not ${lines}`)
  const record = table.find(request)
  const { tmuxName } = terminalOf(record, request.tab_id === undefined ? {} : { id: request.tab_id })
  const { text, cursor, rows, cols } = await tmux.screen(tmuxName, { history: lines })
  return { text, cursor, rows, cols }
}
