import { required, type Config } from '@svc/core'
import type { GroupHandlers } from './group.js'

export function configRoutes(config: Config): GroupHandlers<'config'> {
  return {
    GetConfig: () => config.entries(),
    SetConfigValue: ({ key, value }) =>
      config.set(
        required(key, 'key'),
        required(value, 'value', 'UnsetConfigValue clears a key'),
      ),
    UnsetConfigValue: ({ key }) => config.unset(required(key, 'key')),
  }
}
