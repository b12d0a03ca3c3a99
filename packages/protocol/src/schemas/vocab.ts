import Type from 'typebox'
import {
  BACKEND_STATUSES,
  CONFIG_APPLIES,
  CONFIG_SCOPES,
  CONFIG_SOURCES,
  CONFIG_TIER_NAMES,
  DELIVER_PROMPT_STATUSES,
  DELIVERY_STATUSES,
  IDLE_REASONS,
  LIFECYCLE_ACTIONS,
  LIVENESS_NAMES,
  ON_COMPLETE_VALUES,
  STATUS_NAMES,
  TAB_KIND_NAMES,
  TASK_ACTORS,
  TASK_ARMINGS,
} from '../vocab.js'

// The fixed vocabularies as closed word lists, so the published JSON Schemas carry `enum`.
// Request fields stay plain strings: a word outside the list is a 500 naming the allowed
// ones, not a decoding error.

/** String twins also allow `""`: the encoder's word for an integer it does not recognize. */
export const StatusNameWord = Type.Enum([...STATUS_NAMES, ''] as const)
export const LivenessNameWord = Type.Enum([...LIVENESS_NAMES, ''] as const)
export const TabKindNameWord = Type.Enum([...TAB_KIND_NAMES, ''] as const)
/** `tab_kinds[].kind` lists the kinds themselves, never an unknown one. */
export const TabKindWord = Type.Enum(TAB_KIND_NAMES)
export const IdleReasonWord = Type.Enum(IDLE_REASONS)
export const DeliveryStatusWord = Type.Enum(DELIVERY_STATUSES)
export const DeliverPromptStatusWord = Type.Enum(DELIVER_PROMPT_STATUSES)
export const OnCompleteWord = Type.Enum(ON_COMPLETE_VALUES)
export const TaskArmingWord = Type.Enum(TASK_ARMINGS)
export const TaskActorWord = Type.Enum(TASK_ACTORS)
export const LifecycleActionWord = Type.Enum(LIFECYCLE_ACTIONS)
export const BackendStatusWord = Type.Enum(BACKEND_STATUSES)
export const ConfigAppliesWord = Type.Enum(CONFIG_APPLIES)
export const ConfigTierNameWord = Type.Enum(CONFIG_TIER_NAMES)
export const ConfigSourceWord = Type.Enum(CONFIG_SOURCES)
export const ConfigScopeWord = Type.Enum(CONFIG_SCOPES)
