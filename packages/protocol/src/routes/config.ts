import * as c from '../schemas/config.js'
import { rpc } from './define.js'

export const configRoutes = [
  rpc(
    'GetConfig',
    'config',
    'Every global config key with purpose, type, default and current value',
    c.GetConfigRequest,
    c.GetConfigResponse,
  ),
  rpc(
    'SetConfigValue',
    'config',
    'Set one global config key (validated, locked, atomic) and apply it in place',
    c.SetConfigValueRequest,
    c.SetConfigValueResponse,
  ),
  rpc(
    'UnsetConfigValue',
    'config',
    'Clear one global config key under every spelling, back to its default',
    c.UnsetConfigValueRequest,
    c.UnsetConfigValueResponse,
  ),
] as const
