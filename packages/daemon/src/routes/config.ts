import { InvalidRequest, type Config } from '@svc/core'
import type { GroupHandlers } from './group.js'

function required<T>(value: T | undefined, message: string): T {
  if (value === undefined) throw new InvalidRequest(message)
  return value
}

export function configRoutes(config: Config): GroupHandlers<'config'> {
  return {
    GetConfig: () => config.entries(),
    SetConfigValue: ({ key, value }) =>
      config.set(
        required(key, 'key is required'),
        required(value, 'value is required (UnsetConfigValue clears a key)'),
      ),
    UnsetConfigValue: ({ key }) => config.unset(required(key, 'key is required')),
  }
}
