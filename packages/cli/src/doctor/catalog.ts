import { existsSync } from 'node:fs'
import { backends, Config, ConfigResolver, DockerEngine, defaultSettings, programs, readIfExists, systemClock, TrustedRepoConfigs, type Settings } from '@svc/core'
import type { ResponseOf, ServicePaths } from '@svc/protocol'
import { socketClient } from '../daemon-process.js'
import { fail, pass, type Check } from './check.js'
import type { DaemonState } from './daemon-state.js'

/**
 * What svc knows of programs, projects and backends: the running daemon's own answers
 * (its PATH, its trust store as loaded), or with the daemon down the same functions the
 * daemon answers with, run on the state directory's files.
 */
export interface Catalog {
  /** The global settings (config.json over the defaults). */
  settings: Settings
  programs(): Promise<ResponseOf<'ListPrograms'>>
  /** The registered projects' main roots. */
  projects(): Promise<string[]>
  backends(root: string): Promise<ResponseOf<'ListBackends'>>
}

/** config.json as the daemon would load it; a file the daemon refuses is a failed check, and the defaults stand in. */
export async function loadConfig(paths: ServicePaths): Promise<{ config?: Config; check: Check }> {
  try {
    const config = await Config.load(paths.config)
    const warnings = config.loadWarnings.length > 0 ? `; ${config.loadWarnings.join('; ')}` : ''
    const loaded = existsSync(paths.config) ? `${paths.config} loads` : 'no config.json: the defaults apply'
    return { config, check: pass('config', `${loaded}${warnings}`) }
  } catch (error) {
    return { check: fail('config', (error as Error).message, `fix the named key in ${paths.config} (the daemon refuses to start meanwhile)`) }
  }
}

async function storedProjects(paths: ServicePaths): Promise<string[]> {
  const text = await readIfExists(paths.projects)
  if (text === undefined) return []
  return (JSON.parse(text) as { projects: Array<{ root: string }> }).projects.map((project) => project.root)
}

export function catalogOf(paths: ServicePaths, config: Config | undefined, state: DaemonState): Catalog {
  const settings = config?.all() ?? defaultSettings()
  if ('health' in state && state.health.phase === 'ready') {
    const client = socketClient(paths)
    return {
      settings,
      programs: () => client.call('ListPrograms', {}),
      projects: async () => (await client.call('ListProjects', {})).projects.map((project) => project.root),
      backends: (root) => client.call('ListBackends', { repo_path: root }),
    }
  }
  const resolver = config && new ConfigResolver(config, new TrustedRepoConfigs(paths.trustedRepoConfigs), systemClock)
  // Whether the Docker Engine answers, asked as the daemon would (docker.host), without it.
  const engine = new DockerEngine({ host: () => settings['docker.host'], env: () => process.env, timeoutMs: 10_000 })
  return {
    settings,
    programs: async () => programs(settings, process.env.PATH),
    projects: () => storedProjects(paths),
    backends: async (root) => (resolver ? backends(await resolver.forRoot(root), await engine.unavailable()) : { backends: [], default: settings.backend, default_status: 'unavailable' }),
  }
}
