import * as c from '../schemas/config.js'
import { rpc } from './define.js'

export const configRoutes = [
  rpc(
    'GetConfig',
    'config',
    'Every config key with purpose, type, tier, default, current value and its source; with repo_path, the values in force for that repository',
    c.GetConfigRequest,
    c.GetConfigResponse,
  ),
  rpc(
    'SetConfigValue',
    'config',
    "Set one global config key (validated, locked, atomic) and apply it in place; with repo_path, in the repository's .svc/config.json",
    c.SetConfigValueRequest,
    c.SetConfigValueResponse,
    { required: ['key', { field: 'value', hint: 'UnsetConfigValue clears a key', emptyAllowed: true }] },
  ),
  rpc(
    'UnsetConfigValue',
    'config',
    "Clear one global config key under every spelling, back to its default; with repo_path, from the repository's .svc/config.json",
    c.UnsetConfigValueRequest,
    c.UnsetConfigValueResponse,
    { required: ['key'] },
  ),
] as const
