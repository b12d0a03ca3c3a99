import type { Static } from 'typebox'
import {
  CONFIG_TIER_NAMES,
  type ConfigChange,
  type ConfigEntry,
  type ConfigSource,
  type GetConfigResponse,
  type SetConfigValueResponse,
} from '@svc/protocol'
import { MutationCommitted, Refused } from '../errors.js'
import { isLoopbackHost, parseListenAddress } from '../net.js'
import { readIfExists, writeFileDurable } from '../infra/durable.js'
import { withFileLock } from '../infra/filelock.js'
import { SerialQueue } from '../serial.js'
import { CONFIG_KEYS, CONFIG_KEY_NAMES, type ConfigKey, type KeyDef, type Settings } from './keys.js'
import {
  deletePath,
  getPath,
  parseConfig,
  parsedEdit,
  repositorySetting,
  resolveKey,
  setPath,
  unsetEdit,
  type ConfigDocument,
  type KeyTarget,
} from './document.js'

export type ConfigChangeT = Static<typeof ConfigChange>
type ConfigEntryT = Static<typeof ConfigEntry>

/** Called after a save with the new and previous settings and the key written; a throw means "saved but not applied". */
/** Refuses (throws) a write that would leave the daemon in a state it cannot keep, such as a host in use removed. */
export type ConfigGuard = (next: Settings, previous: Settings) => void
export type ConfigListener = (next: Settings, previous: Settings, key: ConfigKey) => Promise<void> | void

/**
 * The warning for a TCP listener that answers without a token: from the network (a
 * non-loopback bind), or from every local user (a loopback bind with a token setting
 * turned off). An explicit opt-out keeps working; it is shown, never migrated.
 */
export function exposureWarning(settings: Settings): string | undefined {
  const addr = settings['network.listen_addr']
  if (addr === '') return undefined
  const { host } = parseListenAddress(addr)
  const loopbackBind = host !== '' && isLoopbackHost(host)
  if (!loopbackBind) {
    if (settings['network.require_token']) return undefined
    return (
      `network.listen_addr ${addr} makes the control API reachable from the network without a token; ` +
      'set network.require_token true (the token is in daemon-token)'
    )
  }
  const off = !settings['network.require_token']
    ? 'network.require_token'
    : !settings['network.require_loopback_token']
      ? 'network.require_loopback_token'
      : undefined
  if (off === undefined) return undefined
  return (
    `${off} is false: every local user and process can drive the control API on ${addr} without a token ` +
    `(web pages are still refused by the Origin and Host rules); set ${off} true`
  )
}

/** One key's GetConfig entry: its value in force, in editor form, and where that comes from. */
export function entryOf(name: ConfigKey, value: unknown, source: ConfigSource): ConfigEntryT {
  const def = CONFIG_KEYS[name] as KeyDef
  return {
    key: name,
    purpose: def.purpose,
    type: def.type.name,
    default: def.type.format(def.default),
    value: def.type.format(value),
    applies: def.applies,
    ...(def.aliases.length > 0 ? { aliases: [...def.aliases] } : {}),
    tier: CONFIG_TIER_NAMES.indexOf(def.tier) + 1,
    tier_name: def.tier,
    settable: true as const,
    editable: true as const,
    ...(def.type.words ? { enum: [...def.type.words] } : {}),
    source,
    scope: def.scope,
  }
}

/** A set's answer: the change, and `result` and `restart_notice` for older clients. */
export function setResponse(change: ConfigChangeT): Static<typeof SetConfigValueResponse> {
  const { key, value, applies } = change
  const notice = applies === 'next-start' ? `${key} takes effect on the next daemon start` : undefined
  return { ...change, result: { key, value, applies }, ...(notice ? { restart_notice: notice } : {}) }
}

/** A key config.json may hold: repository settings are refused with where they go. */
function globalKey(typed: string): KeyTarget {
  const target = resolveKey(typed)
  if (target.def.scope === 'repo') throw new Refused(repositorySetting(target.name))
  return target
}

/** Keys that apply on the next start keep, in the running daemon, the value it started with. */
function keepStartValues(next: Settings, running: Settings): Settings {
  const kept = { ...next }
  for (const name of CONFIG_KEY_NAMES) {
    if (CONFIG_KEYS[name].applies === 'next-start') (kept as Record<string, unknown>)[name] = running[name]
  }
  return kept
}

/**
 * The global config: the settings the daemon applies, and the locked, atomic writer of
 * config.json. Writes re-read the file inside the lock, so hand edits are kept (and a
 * bad hand edit stops the write instead of being overwritten).
 */
export class Config {
  private readonly writes = new SerialQueue()
  private readonly listeners: ConfigListener[] = []
  private readonly guards: ConfigGuard[] = []

  private constructor(
    readonly path: string,
    private settings: Settings,
    readonly loadWarnings: string[],
    private readonly pinned: Partial<Settings>,
  ) {}

  /**
   * `pinned` settings hold for this run whatever config.json says, before or after a
   * write (the agent server's listener and token rules); the file keeps its own values.
   */
  static async load(path: string, pinned: Partial<Settings> = {}): Promise<Config> {
    const document = parseConfig(await readIfExists(path), path)
    return new Config(path, { ...document.settings, ...pinned }, document.warnings, pinned)
  }

  get<K extends ConfigKey>(key: K): Settings[K] {
    return this.settings[key]
  }

  /** A copy of every setting the daemon applies now. */
  all(): Settings {
    return structuredClone(this.settings)
  }

  onChange(listener: ConfigListener): void {
    this.listeners.push(listener)
  }

  /** A check every write passes before it is saved: it throws to refuse the write, nothing changed. */
  guard(check: ConfigGuard): void {
    this.guards.push(check)
  }

  /** Every key as config.json holds it now, in editor form; repository settings at their default. */
  async entries(): Promise<Static<typeof GetConfigResponse>> {
    const document = await this.read()
    const entries = CONFIG_KEY_NAMES.map((name) =>
      entryOf(name, document.settings[name], document.written.has(name) ? 'global' : 'default'),
    )
    const warnings = [...document.warnings, ...this.optionalWarning(exposureWarning(document.settings))]
    return { entries, path: this.path, ...(warnings.length > 0 ? { warnings } : {}) }
  }

  async set(typed: string, text: string): Promise<Static<typeof SetConfigValueResponse>> {
    return setResponse(await this.setValue(typed, text))
  }

  private setValue(typed: string, text: string): Promise<ConfigChangeT> {
    const target = globalKey(typed)
    const edit = parsedEdit(target, typed, text)
    return this.write(target, edit)
  }

  /**
   * Rewrites one key from its value in config.json (not the running value, which for
   * next-start keys is the one the daemon started with), under the lock.
   */
  update<K extends ConfigKey>(key: K, change: (current: Settings[K]) => Settings[K]): Promise<ConfigChangeT> {
    const target = resolveKey(key)
    return this.write(target, (raw) => {
      const current = parseConfig(JSON.stringify(raw), this.path).settings[key]
      setPath(raw, key, target.def.type.encode(change(current)))
    })
  }

  unset(typed: string): Promise<ConfigChangeT> {
    const target = globalKey(typed)
    return this.write(target, (raw) => unsetEdit(target, raw))
  }

  private async read(): Promise<ConfigDocument> {
    return parseConfig(await readIfExists(this.path), this.path)
  }

  private write(target: KeyTarget, edit: (raw: Record<string, unknown>) => void): Promise<ConfigChangeT> {
    return this.writes.run(async () => {
      const saved = await withFileLock(`${this.path}.lock`, async () => {
        const document = await this.read()
        edit(document.raw)
        // The canonical spelling replaces any alias, so a key never has two live values.
        if (target.entry === undefined && getPath(document.raw, target.name) !== undefined) {
          for (const alias of target.def.aliases) deletePath(document.raw, alias)
        }
        const next = parseConfig(JSON.stringify(document.raw), this.path)
        for (const check of this.guards) check(next.settings, this.settings)
        await writeFileDurable(this.path, `${JSON.stringify(next.raw, null, 2)}\n`)
        return next
      })
      const previous = this.settings
      this.settings = { ...keepStartValues(saved.settings, previous), ...this.pinned }
      const value = target.def.type.format(saved.settings[target.name])
      const warnings = this.optionalWarning(exposureWarning(this.settings))
      await this.apply(this.settings, previous, target.name)
      return { ok: true as const, key: target.name, value, applies: target.def.applies, ...(warnings.length ? { warnings } : {}) }
    })
  }

  private async apply(next: Settings, previous: Settings, key: ConfigKey): Promise<void> {
    const failures: string[] = []
    for (const listener of this.listeners) {
      try {
        await listener(next, previous, key)
      } catch (error) {
        failures.push((error as Error).message)
      }
    }
    if (failures.length > 0) {
      throw new MutationCommitted(`${key} was saved to ${this.path}, but applying it failed: ${failures.join('; ')}`)
    }
  }

  private optionalWarning(warning: string | undefined): string[] {
    return warning === undefined ? [] : [warning]
  }
}
