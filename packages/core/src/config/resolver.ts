import type { Static } from 'typebox'
import { expandHome, type GetConfigResponse, type SetConfigValueResponse, type TrustProjectResponse } from '@svc/protocol'
import { Refused } from '../errors.js'
import type { Clock } from '../infra/clock.js'
import { resolveRepository } from '../infra/git.js'
import { shellQuote } from '../infra/launcher.js'
import { entryOf, setResponse, type Config, type ConfigChangeT } from './config.js'
import { CONFIG_KEYS, type ConfigKey, type KeyDef, type Settings } from './keys.js'
import { readRepoConfig, repoConfigPath, RepoConfigFiles, type RepoDocument } from './repo.js'
import { trustedContent, type TrustedRepoConfigs, type Untrusted } from './trust.js'

/** Settings in force somewhere: the global ones, or a repository's. */
export interface InForce {
  settings: Settings
  /** Set when the repository's config names commands that are not trusted: why, and how to trust it. */
  distrust?: string
}

/** The settings in force for one repository: its config over config.json over the defaults. */
export interface RepoSettings extends InForce {
  /** The repository's main root. */
  root: string
  /** Where its config lives (whether or not it exists). */
  file: string
  document?: RepoDocument
}

/** A path as typed into a shell: quoted only when it needs to be. */
function shellWord(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : shellQuote(path)
}

/** What in the repository needs reviewing before it is trusted, and why. */
function why(untrusted: Untrusted, document: RepoDocument): string {
  const commands = document.commands.map((command) => JSON.stringify(command)).join(', ')
  const scripts = (paths: string[]) => (paths.length === 1 ? `the script ${paths[0]}` : `the scripts ${paths.join(', ')}`)
  switch (untrusted.kind) {
    case 'new':
      return `: it would run ${commands}; review it`
    case 'config':
      return ` (it changed since it was trusted): it would run ${commands}; review it`
    case 'scripts':
      return `: ${scripts(untrusted.paths)} it runs changed since it was trusted; review ${untrusted.paths.join(', ')}`
    case 'unrecorded':
      return `: it was trusted by an earlier svc, which did not record ${scripts(untrusted.paths)} it runs; review ${untrusted.paths.join(', ')}`
  }
}

export type RepoConfigListener = (key: ConfigKey) => void

/**
 * The one answer to "the value in force for this repository": callers never merge the
 * layers themselves. A repository's value replaces the global one whole (a map
 * included). What a repository's config would run is used only once trusted.
 */
export class ConfigResolver {
  private readonly files = new RepoConfigFiles()
  private readonly listeners: RepoConfigListener[] = []
  /** Roots whose config a home daemon judged: an agent server's workspace. */
  private readonly judgedByHome = new Set<string>()

  constructor(
    readonly global: Config,
    private readonly trust: TrustedRepoConfigs,
    private readonly clock: Clock,
  ) {}

  /**
   * An agent server's workspace: the home daemon trusted this repository's config before
   * it asked for the session, and sends the command line it resolved, so the clone's
   * config (committed with the repository) is not judged again against this daemon's
   * empty trust store.
   */
  judgedElsewhere(root: string): void {
    this.judgedByHome.add(root)
  }

  onChange(listener: RepoConfigListener): void {
    this.listeners.push(listener)
  }

  /**
   * The settings in force for the repository at `root` (its main root). A malformed
   * config is an error naming the file and the key, never ignored.
   */
  async forRoot(root: string): Promise<RepoSettings> {
    const document = await readRepoConfig(root)
    const settings = { ...this.global.all(), ...structuredClone(document?.values) }
    const distrust = document && !this.judgedByHome.has(root) ? await this.distrust(root, document) : undefined
    return { root, file: repoConfigPath(root), settings, ...(document ? { document } : {}), ...(distrust ? { distrust } : {}) }
  }

  /** The settings in force for the repository holding `path` (any path in any of its worktrees). */
  async forPath(path: string): Promise<RepoSettings> {
    return this.forRoot((await resolveRepository(expandHome(path))).root)
  }

  /** With a path, that repository's settings; without, the global ones. */
  async inForce(path: string | undefined): Promise<InForce> {
    return path ? this.forPath(path) : { settings: this.global.all() }
  }

  /**
   * The settings a session of the repository runs with: refused while its config names
   * commands the user has not trusted in this exact content.
   */
  async runnable(root: string): Promise<Settings> {
    const { settings, distrust } = await this.forRoot(root)
    if (distrust !== undefined) throw new Refused(distrust)
    return settings
  }

  /** Whether the repository's config may run (ListProjects): one that cannot be read may not. */
  async trusted(root: string): Promise<boolean> {
    try {
      return (await this.forRoot(root)).distrust === undefined
    } catch {
      return false
    }
  }

  private async distrust(root: string, document: RepoDocument): Promise<string | undefined> {
    if (document.commands.length === 0) return undefined
    const untrusted = await this.trust.untrusted(root, await trustedContent(root, document))
    if (untrusted === undefined) return undefined
    return `the repository config ${document.file} is not trusted${why(untrusted, document)}, then run: svc projects trust ${shellWord(root)}`
  }

  /** Every key with the value in force for the repository, and where that value comes from. */
  async entries(path: string): Promise<Static<typeof GetConfigResponse>> {
    const repo = await this.forPath(path)
    const global = await this.global.entries()
    const values = repo.document?.values ?? {}
    const entries = global.entries.map((entry) => {
      const name = entry.key as ConfigKey
      return values[name] === undefined ? entry : entryOf(name, values[name], 'repo')
    })
    return { ...global, entries, repo_file: repo.file, repo_trusted: repo.distrust === undefined }
  }

  async set(path: string, typed: string, text: string): Promise<Static<typeof SetConfigValueResponse>> {
    const root = (await resolveRepository(expandHome(path))).root
    return setResponse(await this.changed(root, await this.files.set(root, typed, text)))
  }

  async unset(path: string, typed: string): Promise<ConfigChangeT> {
    const root = (await resolveRepository(expandHome(path))).root
    return this.changed(root, await this.files.unset(root, typed))
  }

  /**
   * What an edit of a repository's config did. Writing through svc never trusts the file:
   * when it names commands, the answer says it needs `svc projects trust`.
   */
  private async changed(root: string, { document, key }: { document: RepoDocument; key: ConfigKey }): Promise<ConfigChangeT> {
    for (const listener of this.listeners) listener(key)
    const { settings, distrust } = await this.forRoot(root)
    const def = CONFIG_KEYS[key] as KeyDef
    return {
      ok: true,
      key,
      value: def.type.format(settings[key]),
      applies: def.applies,
      file: document.file,
      ...(distrust ? { warnings: [`sessions of this repository are refused until it is trusted: ${distrust}`] } : {}),
    }
  }

  /** Records the repository config's content, and its scripts', as trusted; refused when there is none. */
  async trustRepository(path: string): Promise<Static<typeof TrustProjectResponse>> {
    const root = (await resolveRepository(expandHome(path))).root
    const document = await readRepoConfig(root)
    if (!document) throw new Refused(`${repoConfigPath(root)} does not exist: the repository has no config to trust`)
    await this.trust.trust(root, await trustedContent(root, document), this.clock.now())
    return { ok: true, sha256: document.sha256 }
  }
}
