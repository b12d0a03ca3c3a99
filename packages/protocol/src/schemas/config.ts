import Type from 'typebox'
import { Closed, Request } from './common.js'
import { ConfigAppliesWord, ConfigScopeWord, ConfigSourceWord, ConfigTierNameWord } from './vocab.js'

export const CONFIG_TYPES = ['bool', 'int', 'duration', 'string', 'address', 'env-names', 'list', 'map', 'ssh-hosts'] as const
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
  /**
   * Where `value` comes from: `default`, `global` (config.json sets it) or `repo` (the
   * repository's .svc/config.json sets it; only with `GetConfig {repo_path}`).
   */
  source: ConfigSourceWord,
  /**
   * Where the key may be set: `global` (config.json only), `repo` (a repository's
   * .svc/config.json only: without `repo_path` its entry shows the default) or `both`.
   */
  scope: ConfigScopeWord,
})

/** With `repo_path`, the values in force for that repository (its .svc/config.json over config.json). */
export const GetConfigRequest = Request({ repo_path: Type.String() })
export const GetConfigResponse = Closed({
  entries: Type.Array(ConfigEntry),
  path: Type.String(),
  /** With `repo_path`: the repository's config file (present or not) and whether its commands may run. */
  repo_file: Type.Optional(Type.String()),
  repo_trusted: Type.Optional(Type.Boolean()),
  warnings: Type.Optional(Type.Array(Type.String())),
})

/** What a set or unset changed, and when it takes effect. */
const change = {
  ok: Type.Literal(true),
  key: Type.String(),
  value: Type.String(),
  applies: ConfigAppliesWord,
  /** The repository config file written, for a change with `repo_path`. */
  file: Type.Optional(Type.String()),
  warnings: Type.Optional(Type.Array(Type.String())),
}
export const ConfigChange = Closed(change)

/** With `repo_path`, the key is written to that repository's .svc/config.json instead of config.json. */
export const SetConfigValueRequest = Request({ key: Type.String(), value: Type.String(), repo_path: Type.String() })
/** `result` and `restart_notice` are kept for older clients (additive). */
export const SetConfigValueResponse = Closed({
  ...change,
  result: Closed({ key: Type.String(), value: Type.String(), applies: ConfigAppliesWord }),
  /** Present when the key takes effect on the next daemon start only. */
  restart_notice: Type.Optional(Type.String()),
})

export const UnsetConfigValueRequest = Request({ key: Type.String(), repo_path: Type.String() })
export const UnsetConfigValueResponse = ConfigChange
