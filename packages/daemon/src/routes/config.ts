import type { ConfigResolver } from '@svc/core'
import type { GroupHandlers } from './group.js'

/** Without `repo_path` the global config.json; with it, that repository's .svc/config.json. */
export function configRoutes(resolver: ConfigResolver): GroupHandlers<'config'> {
  const { global } = resolver
  return {
    GetConfig: ({ repo_path }) => (repo_path ? resolver.entries(repo_path) : global.entries()),
    SetConfigValue: ({ key, value, repo_path }) => (repo_path ? resolver.set(repo_path, key, value) : global.set(key, value)),
    UnsetConfigValue: ({ key, repo_path }) => (repo_path ? resolver.unset(repo_path, key) : global.unset(key)),
  }
}
