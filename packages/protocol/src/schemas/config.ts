import Type from 'typebox'
import { Closed, Empty, Request } from './common.js'
import { ConfigAppliesWord, ConfigSourceWord, ConfigTierNameWord } from './vocab.js'

export const CONFIG_TYPES = ['bool', 'int', 'duration', 'string', 'address', 'env-names', 'list', 'map'] as const
export type ConfigType = (typeof CONFIG_TYPES)[number]

export const ConfigEntry = Closed({
  key: Type.String(),
  purpose: Type.String(),
  type: Type.Enum(CONFIG_TYPES),
  default: Type.String(),
  value: Type.String(),
  applies: ConfigAppliesWord,
  aliases: Type.Optional(Type.Array(Type.String())),
  /** How often a person needs the key: 1 core, 2 common, 3 advanced; `tier_name` says it in a word. */
  tier: Type.Integer({ minimum: 1, maximum: 3 }),
  tier_name: ConfigTierNameWord,
  /** Kept for older clients: every listed key can be set and edited. */
  settable: Type.Literal(true),
  editable: Type.Literal(true),
  /** The words `SetConfigValue` accepts, present only for a key with a closed vocabulary. */
  enum: Type.Optional(Type.Array(Type.String())),
  /** Where `value` comes from: `default` (config.json does not set it) or `global` (it does). */
  source: ConfigSourceWord,
})

export const GetConfigRequest = Empty
export const GetConfigResponse = Closed({
  entries: Type.Array(ConfigEntry),
  path: Type.String(),
  warnings: Type.Optional(Type.Array(Type.String())),
})

/** What a set or unset changed, and when it takes effect. */
const change = {
  ok: Type.Literal(true),
  key: Type.String(),
  value: Type.String(),
  applies: ConfigAppliesWord,
  warnings: Type.Optional(Type.Array(Type.String())),
}
export const ConfigChange = Closed(change)

export const SetConfigValueRequest = Request({ key: Type.String(), value: Type.String() })
/** `result` and `restart_notice` are kept for older clients (additive). */
export const SetConfigValueResponse = Closed({
  ...change,
  result: Closed({ key: Type.String(), value: Type.String(), applies: ConfigAppliesWord }),
  /** Present when the key takes effect on the next daemon start only. */
  restart_notice: Type.Optional(Type.String()),
})

export const UnsetConfigValueRequest = Request({ key: Type.String() })
export const UnsetConfigValueResponse = ConfigChange
