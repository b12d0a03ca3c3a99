import { quote, removedKeyGuidance } from '@svc/protocol'
import { CorruptFile, InvalidRequest, Refused } from '../errors.js'
import { CONFIG_KEYS, CONFIG_KEY_NAMES, defaultSettings, type ConfigKey, type KeyDef, type Settings } from './keys.js'

/** The raw JSON object of config.json; dotted key names are nested objects. */
export type RawConfig = Record<string, unknown>

export function isObject(value: unknown): value is RawConfig {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Why a repository setting is refused where only global ones go. */
export function repositorySetting(name: string): string {
  return `${name} is a repository setting: use --repo PATH (repo_path in the request) to set it in the repository's .svc/config.json`
}

export function getPath(raw: RawConfig, dotted: string): unknown {
  let node: unknown = raw
  for (const part of dotted.split('.')) {
    if (!isObject(node) || !Object.hasOwn(node, part)) return undefined
    node = node[part]
  }
  return node
}

/**
 * Own properties only, defined rather than assigned: a map entry named `__proto__` is
 * stored as that key and can never reach an object's prototype.
 */
function ownChild(node: RawConfig, part: string): unknown {
  return Object.hasOwn(node, part) ? node[part] : undefined
}

function define(node: RawConfig, part: string, value: unknown): void {
  Object.defineProperty(node, part, { value, enumerable: true, writable: true, configurable: true })
}

export function setPath(raw: RawConfig, dotted: string, value: unknown): void {
  const parts = dotted.split('.')
  const last = parts.pop() as string
  let node = raw
  for (const part of parts) {
    if (!isObject(ownChild(node, part))) define(node, part, {})
    node = node[part] as RawConfig
  }
  define(node, last, value)
}

/** Deletes the leaf and any parent objects it leaves empty. */
export function deletePath(raw: RawConfig, dotted: string): void {
  const [head, ...rest] = dotted.split('.') as [string, ...string[]]
  if (rest.length === 0) {
    delete raw[head]
    return
  }
  const child = ownChild(raw, head)
  if (!isObject(child)) return
  deletePath(child, rest.join('.'))
  if (Object.keys(child).length === 0) delete raw[head]
}

export interface ConfigDocument {
  raw: RawConfig
  settings: Settings
  /** The keys config.json sets, under any spelling; the others are at their default. */
  written: Set<ConfigKey>
  warnings: string[]
}

/** A config file's JSON object; empty text is an empty object. */
export function parseJsonObject(text: string | undefined, file: string): RawConfig {
  let raw: unknown = {}
  if (text !== undefined && text.trim() !== '') {
    try {
      raw = JSON.parse(text)
    } catch (error) {
      throw new CorruptFile(`${file} is not valid JSON (${(error as Error).message}); fix or remove it`)
    }
  }
  if (!isObject(raw)) throw new CorruptFile(`${file} must hold a JSON object, not ${JSON.stringify(raw).slice(0, 40)}`)
  return raw
}

/**
 * Reads config.json text into settings. A hand-edited value of the wrong type is an
 * error naming the file and the key; unknown and removed keys only warn.
 */
export function parseConfig(text: string | undefined, file: string): ConfigDocument {
  const raw = parseJsonObject(text, file)

  const settings = defaultSettings()
  const written = new Set<ConfigKey>()
  const warnings: string[] = []
  for (const name of CONFIG_KEY_NAMES) {
    const def = CONFIG_KEYS[name] as KeyDef
    const spelled = [name, ...def.aliases].filter((spelling) => getPath(raw, spelling) !== undefined)
    const used = spelled[0]
    if (used === undefined) continue
    if (def.scope === 'repo') {
      warnings.push(`${used} is ignored in ${file}: ${repositorySetting(name)}`)
      continue
    }
    written.add(name)
    if (spelled.length > 1) warnings.push(`${spelled.join(' and ')} are both set; using ${used}`)
    try {
      ;(settings as Record<string, unknown>)[name] = def.type.decode(getPath(raw, used))
    } catch (error) {
      throw new CorruptFile(`${file}: key "${used}": ${(error as Error).message}`)
    }
  }
  warnings.push(...unknownKeys(raw))
  return { raw, settings, written, warnings }
}

const known = new Set(CONFIG_KEY_NAMES.flatMap((name) => [name, ...(CONFIG_KEYS[name] as KeyDef).aliases]))
const prefixes = new Set(
  [...known].flatMap((name) => {
    const parts = name.split('.')
    return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('.'))
  }),
)

function unknownKeys(node: RawConfig, prefix = ''): string[] {
  return Object.entries(node).flatMap(([part, value]) => {
    const path = prefix + part
    if (known.has(path)) return []
    const removed = removedKeyGuidance(part)
    if (removed !== undefined) return [`${path} is ignored: ${removed}`]
    if (part === 'open_pr' || part === 'copy_pr') return [`${path} is ignored: the ${part} key binding was removed`]
    if (prefixes.has(path) && isObject(value)) return unknownKeys(value, `${path}.`)
    return [`unknown key "${path}" is ignored`]
  })
}

export interface KeyTarget {
  name: ConfigKey
  def: KeyDef
  /** Set for `program_overrides.claude`-style names that address one map entry. */
  entry?: string
}

/** Resolves what a person typed (canonical name, alias or map entry) to a key. */
export function resolveKey(typed: string): KeyTarget {
  const removed = removedKeyGuidance(typed)
  if (removed !== undefined) throw new Refused(removed)
  for (const name of CONFIG_KEY_NAMES) {
    const def = CONFIG_KEYS[name] as KeyDef
    if (name === typed || def.aliases.includes(typed)) return { name, def }
    if (def.type.entry && typed.startsWith(`${name}.`) && typed.length > name.length + 1) {
      return { name, def, entry: typed.slice(name.length + 1) }
    }
  }
  throw new InvalidRequest(`unknown config key ${quote(typed)}; "svc config get" lists every key`)
}

/**
 * The edit that sets what a person typed (a whole key, or one map entry) in a raw config
 * object, the value checked first; a bad value is an InvalidRequest naming the key.
 */
export function parsedEdit(target: KeyTarget, typed: string, text: string): (raw: RawConfig) => void {
  try {
    if (target.entry === undefined) {
      const value = target.def.type.encode(target.def.type.parse(text))
      return (raw) => setPath(raw, target.name, value)
    }
    const entry = target.def.type.entry?.(target.entry, text)
    return (raw) => setPath(raw, `${target.name}.${target.entry as string}`, entry)
  } catch (error) {
    throw new InvalidRequest(`${typed}: ${(error as Error).message}`)
  }
}

/** The edit that clears a key under every spelling, or one map entry. */
export function unsetEdit(target: KeyTarget, raw: RawConfig): void {
  if (target.entry !== undefined) deletePath(raw, `${target.name}.${target.entry}`)
  else for (const spelling of [target.name, ...target.def.aliases]) deletePath(raw, spelling)
}
