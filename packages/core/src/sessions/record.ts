import type { Static } from 'typebox'
import {
  CREATABLE_TAB_KINDS,
  livenessName,
  statusName,
  tabKindName,
  type DeliveryStatus,
  type IdleReason,
  type Session,
} from '@svc/protocol'

export type SessionWire = Static<typeof Session>

export interface TabRecord {
  id: string
  kind: number
  name: string
  /** The tmux session the tab runs in (agent, shell and process tabs). */
  tmux_name?: string
  command?: string
  url?: string
}

/** A session as stored in sessions.json and held in memory; twins are never stored. */
export interface SessionRecord {
  id: string
  title: string
  repo_id: string
  repo_path: string
  path: string
  branch: string
  program: string
  account: string
  backend: string
  in_place: boolean
  created_at: string
  updated_at?: string
  status: number
  liveness?: number
  tabs: TabRecord[]
  last_pane_churn_at?: string
  last_prompt_attempt_at?: string
  last_prompt_delivery_status?: DeliveryStatus
  lost_restore_failure?: { attempts: number; error: string }
}

const TAB_KINDS = [{ kind: 'agent' }, ...CREATABLE_TAB_KINDS.map((kind) => ({ kind })), { kind: 'process' }]

/** The session object on the wire: stored fields plus the twins the encoder derives. */
export function encodeSession(record: SessionRecord, bootId: string, idleReason?: IdleReason): SessionWire {
  const { liveness, updated_at, ...rest } = record
  return {
    ...rest,
    updated_at: updated_at || record.created_at,
    status_name: statusName(record.status),
    ...(liveness ? { liveness } : {}),
    liveness_name: livenessName(record),
    tabs: record.tabs.map((tab) => ({ ...tab, kind_name: tabKindName(tab.kind) })),
    tab_kinds: TAB_KINDS,
    ...(idleReason ? { idle_reason: idleReason } : {}),
    boot_id: bootId,
  }
}
