import { createHash } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { quote, removedKeyGuidance } from '@svc/protocol'
import { agentNamed } from '../agents/agent.js'
import { CorruptFile, Refused } from '../errors.js'
import { readIfExists, writeFileDurable } from '../infra/durable.js'
import { KeyedQueue } from '../serial.js'
import { getPath, isObject, parseJsonObject, parsedEdit, resolveKey, unsetEdit, type KeyTarget, type RawConfig } from './document.js'
import { CONFIG_KEYS, CONFIG_KEY_NAMES, type ConfigKey, type KeyDef, type Settings } from './keys.js'

/** Where a repository keeps its config, relative to its main root; checked into the repository. */
export const REPO_CONFIG_FILE = join('.svc', 'config.json')

export function repoConfigPath(root: string): string {
  return join(root, REPO_CONFIG_FILE)
}

/** The keys a repository's config may set; every other key stays global. */
export const REPO_KEYS = CONFIG_KEY_NAMES.filter((name) => CONFIG_KEYS[name].scope !== 'global')

const repoKeys = new Set<string>(REPO_KEYS)
/** Dotted prefixes (`remote_hooks`, `network`) under which a leaf key may be nested. */
const prefixes = new Set(
  CONFIG_KEY_NAMES.flatMap((name) => [name, ...(CONFIG_KEYS[name] as KeyDef).aliases]).flatMap((name) => {
    const parts = name.split('.')
    return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('.'))
  }),
)

/** A repository's .svc/config.json, read and checked. */
export interface RepoDocument {
  file: string
  raw: RawConfig
  /** The keys the file sets, decoded. */
  values: Partial<Settings>
  /** sha256 of the file's bytes, which trust is recorded against. */
  sha256: string
  /** The command lines the file would have svc run; empty means it needs no trust. */
  commands: string[]
}

/** Each dotted leaf the file sets; a repository key (a whole map included) is one leaf. */
function leaves(node: RawConfig, prefix = ''): string[] {
  return Object.entries(node).flatMap(([part, value]) => {
    const path = prefix + part
    if (!repoKeys.has(path) && prefixes.has(path) && isObject(value)) return leaves(value, `${path}.`)
    return [path]
  })
}

/** Why a key the file sets is refused, or undefined when a repository may set it. */
function refusal(path: string): string | undefined {
  if (repoKeys.has(path)) return undefined
  const removed = removedKeyGuidance(path.split('.').pop() as string)
  if (removed !== undefined) return removed
  let target: KeyTarget
  try {
    target = resolveKey(path)
  } catch {
    return `unknown key; a repository may set only ${REPO_KEYS.join(', ')}`
  }
  if (target.def.scope === 'global') return 'global setting, cannot be set per repository'
  return 'dotted names are written as nested objects, e.g. {"program_overrides": {"claude": "..."}}'
}

/**
 * What a repository's config would run: its program overrides, its remote hooks, and a
 * default program that is a command line rather than a known agent name.
 */
function commandsOf(values: Partial<Settings>): string[] {
  const program = values.default_program?.trim()
  const hooks = (['remote_hooks.provision_cmd', 'remote_hooks.launch_cmd', 'remote_hooks.delete_cmd'] as const).map(
    (name) => values[name] ?? '',
  )
  return [
    ...(program !== undefined && !agentNamed(program) ? [program] : []),
    ...Object.values(values.program_overrides ?? {}),
    ...hooks,
  ].filter((command) => command.trim() !== '')
}

/**
 * Reads a repository config's text. A global key (source scoping: a cloned repository
 * must never grant itself environment passthrough or network settings), an unknown key
 * or a value of the wrong type is an error naming the file and the key.
 */
export function parseRepoConfig(text: string, file: string): RepoDocument {
  const raw = parseJsonObject(text, file)
  for (const path of leaves(raw)) {
    const reason = refusal(path)
    if (reason !== undefined) throw new CorruptFile(`${file}: key ${quote(path)}: ${reason}`)
  }
  const values: Partial<Settings> = {}
  for (const name of REPO_KEYS) {
    const stored = getPath(raw, name)
    if (stored === undefined) continue
    try {
      ;(values as Record<string, unknown>)[name] = (CONFIG_KEYS[name] as KeyDef).type.decode(stored)
    } catch (error) {
      throw new CorruptFile(`${file}: key ${quote(name)}: ${(error as Error).message}`)
    }
  }
  return { file, raw, values, sha256: sha256Of(text), commands: commandsOf(values) }
}

export function sha256Of(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex')
}

/** The repository's config, or undefined when it has none. */
export async function readRepoConfig(root: string): Promise<RepoDocument | undefined> {
  const file = repoConfigPath(root)
  const text = await readIfExists(file)
  return text === undefined ? undefined : parseRepoConfig(text, file)
}

/** A key a repository's config may hold: global ones are refused, as in the file. */
function repoKey(typed: string): KeyTarget {
  const target = resolveKey(typed)
  if (target.def.scope === 'global') throw new Refused(`${target.name}: global setting, cannot be set per repository`)
  return target
}

/**
 * Writes repositories' config files: one edit at a time per repository, re-reading the
 * file first so hand edits are kept (and a bad hand edit stops the write). No lock file
 * is left in the repository: edits go through the daemon.
 */
export class RepoConfigFiles {
  private readonly edits = new KeyedQueue()

  set(root: string, typed: string, text: string): Promise<{ document: RepoDocument; key: ConfigKey }> {
    const target = repoKey(typed)
    return this.edit(root, target, parsedEdit(target, typed, text))
  }

  unset(root: string, typed: string): Promise<{ document: RepoDocument; key: ConfigKey }> {
    const target = repoKey(typed)
    return this.edit(root, target, (raw) => unsetEdit(target, raw))
  }

  private edit(root: string, target: KeyTarget, change: (raw: RawConfig) => void) {
    return this.edits.run(root, async () => {
      const file = repoConfigPath(root)
      const current = await readIfExists(file)
      const raw = current === undefined ? {} : parseRepoConfig(current, file).raw
      change(raw)
      const text = `${JSON.stringify(raw, null, 2)}\n`
      const document = parseRepoConfig(text, file)
      await mkdir(join(root, '.svc'), { recursive: true })
      // Checked into the repository: readable like its other files.
      await writeFileDurable(file, text, 0o644)
      return { document, key: target.name }
    })
  }
}
