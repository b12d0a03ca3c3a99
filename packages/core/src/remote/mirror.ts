import { setState, stateOf, type SessionRecord, type SessionWire, type TabRecord } from '../sessions/record.js'

/** What a hook session's row takes from its remote's row; the rest (id, title, repository) is the home's. */
function mirrored(record: SessionRecord): unknown[] {
  return [
    record.status,
    record.liveness,
    record.path,
    record.branch,
    record.tabs,
    record.last_pane_churn_at,
    record.last_prompt_attempt_at,
    record.last_prompt_delivery_status,
    record.lost_restore_failure,
    record.remote?.idle_reason,
  ]
}

function tabOf(tab: SessionWire['tabs'][number]): TabRecord {
  const copy: TabRecord = { id: tab.id ?? '', kind: tab.kind, name: tab.name }
  if (tab.tmux_name !== undefined) copy.tmux_name = tab.tmux_name
  if (tab.url !== undefined) copy.url = tab.url
  if (tab.command !== undefined) copy.command = tab.command
  return copy
}

/** Sets `key` from the row, deleting it when the row has none (records never hold `undefined`). */
function copy<K extends keyof SessionRecord>(record: SessionRecord, key: K, value: SessionRecord[K] | undefined): void {
  if (value === undefined) delete record[key]
  else record[key] = value
}

/**
 * The remote's row mapped onto the home's record of the session: states, idle reason,
 * pane churn, prompt evidence and tabs (tab ids are the remote's, so a `tab_id` means
 * the same tab on both). True when anything changed.
 */
export function mirror(record: SessionRecord, row: SessionWire): boolean {
  const before = JSON.stringify(mirrored(record))
  const remote = record.remote as NonNullable<SessionRecord['remote']>
  record.status = row.status
  copy(record, 'liveness', row.liveness)
  record.path = row.path
  record.branch = row.branch
  record.tabs = row.tabs.map(tabOf)
  copy(record, 'last_pane_churn_at', row.last_pane_churn_at)
  copy(record, 'last_prompt_attempt_at', row.last_prompt_attempt_at)
  copy(record, 'last_prompt_delivery_status', row.last_prompt_delivery_status)
  copy(record, 'lost_restore_failure', row.lost_restore_failure)
  if (row.idle_reason === undefined) delete remote.idle_reason
  else remote.idle_reason = row.idle_reason
  // Archived there is an archive the home did not finish: its agent stopped, its remote still there.
  if (stateOf(record) === 'archived') setState(record, 'dead')
  return JSON.stringify(mirrored(record)) !== before
}
