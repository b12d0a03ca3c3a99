import Type from 'typebox'
import { Empty, Request } from './common.js'

export const CONFIG_TYPES = ['bool', 'int', 'duration', 'string', 'address', 'env-names', 'list', 'map'] as const
export type ConfigType = (typeof CONFIG_TYPES)[number]

export const ConfigEntry = Type.Object({
  key: Type.String(),
  purpose: Type.String(),
  type: Type.String(),
  default: Type.String(),
  value: Type.String(),
  applies: Type.String({ description: '"now" or "next-start"' }),
  aliases: Type.Optional(Type.Array(Type.String())),
})

export const GetConfigRequest = Empty
export const GetConfigResponse = Type.Object({
  entries: Type.Array(ConfigEntry),
  path: Type.String(),
  warnings: Type.Optional(Type.Array(Type.String())),
})

/** What a set or unset changed, and when it takes effect. */
export const ConfigChange = Type.Object({
  ok: Type.Literal(true),
  key: Type.String(),
  value: Type.String(),
  applies: Type.String(),
  warnings: Type.Optional(Type.Array(Type.String())),
})

export const SetConfigValueRequest = Request({ key: Type.String(), value: Type.String() })
export const SetConfigValueResponse = ConfigChange

export const UnsetConfigValueRequest = Request({ key: Type.String() })
export const UnsetConfigValueResponse = ConfigChange
