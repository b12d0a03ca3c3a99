/** The integer lifecycle values and their string twins. The index is the integer. */
export const STATUS_NAMES = ['running', 'ready', 'loading', 'deleting', 'dead', 'lost', 'archived'] as const
export type StatusName = (typeof STATUS_NAMES)[number]
export const Status = {
  running: 0,
  ready: 1,
  loading: 2,
  deleting: 3,
  dead: 4,
  lost: 5,
  archived: 6,
} as const satisfies Record<StatusName, number>

/** Index 0 is "unset": the field is omitted and the name falls back to `status`. */
export const LIVENESS_NAMES = ['running', 'ready', 'lost', 'dead', 'archived', 'limit-reached'] as const
export type LivenessName = (typeof LIVENESS_NAMES)[number]
export const Liveness = {
  unset: 0,
  running: 1,
  ready: 2,
  lost: 3,
  dead: 4,
  archived: 5,
  'limit-reached': 6,
} as const

export const TAB_KIND_NAMES = ['agent', 'shell', 'process', 'web', 'editor'] as const
export type TabKindName = (typeof TAB_KIND_NAMES)[number]
export const TabKind = { agent: 0, shell: 1, process: 2, web: 3, editor: 4 } as const satisfies Record<
  TabKindName,
  number
>
/** Kinds `CreateTab` accepts; `agent` and `process` are named but not creatable by kind. */
export const CREATABLE_TAB_KINDS = ['shell', 'web', 'editor'] as const satisfies readonly TabKindName[]

export const IDLE_REASONS = [
  'usage-limit',
  'process-exited',
  'restore-gave-up',
  'recreate-pending',
  'prompt-not-delivered',
  'delivery-unconfirmed',
  'no-pane-change-since-delivery',
  'settled-after-pane-change',
  'agent-asks',
] as const
export type IdleReason = (typeof IDLE_REASONS)[number]

export const DELIVERY_STATUSES = ['delivered', 'not-delivered', 'sent-unverified', 'could-not-confirm'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

export const DELIVER_PROMPT_STATUSES = ['started', 'sent'] as const
export type DeliverPromptStatus = (typeof DELIVER_PROMPT_STATUSES)[number]

/** What a task does with a session it spawned once the run settles; `""` keeps it. */
export const ON_COMPLETE_VALUES = ['', 'archive', 'kill'] as const
export type OnCompleteValue = (typeof ON_COMPLETE_VALUES)[number]

/** The calling surface a task write is recorded under. */
export const TASK_ACTORS = ['cli', 'tui', 'api', 'daemon-upgrade'] as const
export type TaskActor = (typeof TASK_ACTORS)[number]

export const TASK_ARMINGS = ['armed', 'watching', 'disabled', 'unschedulable'] as const
export type TaskArming = (typeof TASK_ARMINGS)[number]

/** Kept for older clients: the one lifecycle move a session offers. */
export const LIFECYCLE_ACTIONS = ['archive', 'restore'] as const
export type LifecycleAction = (typeof LIFECYCLE_ACTIONS)[number]

export const BACKEND_STATUSES = ['available', 'unavailable'] as const
export type BackendStatus = (typeof BACKEND_STATUSES)[number]

export const CONFIG_APPLIES = ['now', 'next-start'] as const
export type ConfigApplies = (typeof CONFIG_APPLIES)[number]

/** How often a person needs a config key; a `GetConfig` entry's `tier` is the 1-based position. */
export const CONFIG_TIER_NAMES = ['core', 'common', 'advanced'] as const
export type ConfigTierName = (typeof CONFIG_TIER_NAMES)[number]

/** Where a config key's value in force comes from: its default, config.json, or the repository's .svc/config.json. */
export const CONFIG_SOURCES = ['default', 'global', 'repo'] as const
export type ConfigSource = (typeof CONFIG_SOURCES)[number]

/**
 * Where a config key may be set: `global` only in config.json, `repo` only in a
 * repository's .svc/config.json, `both` in either (the repository's value wins there).
 */
export const CONFIG_SCOPES = ['global', 'repo', 'both'] as const
export type ConfigScope = (typeof CONFIG_SCOPES)[number]

function nameAt<T extends string>(names: readonly T[], value: number): T | '' {
  return Number.isInteger(value) ? (names[value] ?? '') : ''
}

export function statusName(status: number): StatusName | '' {
  return nameAt(STATUS_NAMES, status)
}

export function tabKindName(kind: number): TabKindName | '' {
  return nameAt(TAB_KIND_NAMES, kind)
}

/** Legacy records carry no `liveness`; their `status` decides, and transient statuses have none. */
const LIVENESS_FROM_STATUS: Partial<Record<number, LivenessName>> = {
  [Status.running]: 'running',
  [Status.ready]: 'ready',
  [Status.lost]: 'lost',
  [Status.dead]: 'dead',
  [Status.archived]: 'archived',
}

/**
 * The one derivation behind both `liveness_name` and the `Snapshot` `statuses` filter,
 * so a row selected by a word always reports that word and vice versa.
 */
export function livenessName(record: { status: number; liveness?: number | undefined }): LivenessName | '' {
  const liveness = record.liveness ?? 0
  if (liveness !== Liveness.unset) return nameAt(LIVENESS_NAMES, liveness - 1)
  return LIVENESS_FROM_STATUS[record.status] ?? ''
}

export function isLivenessName(word: string): word is LivenessName {
  return (LIVENESS_NAMES as readonly string[]).includes(word)
}
