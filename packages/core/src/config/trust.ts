import { readFile } from 'node:fs/promises'
import { statSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { readIfExists, writeFileDurable } from '../infra/durable.js'
import { CorruptFile } from '../errors.js'
import { hookArgv } from '../remote/hook-command.js'
import { SerialQueue } from '../serial.js'
import { isObject } from './document.js'
import { sha256Of, type RepoDocument } from './repo.js'

/** The hooks whose scripts, when they are files of the repository, are trusted along with the config. */
const SCRIPT_HOOKS = ['remote_hooks.launch_cmd', 'remote_hooks.provision_cmd', 'remote_hooks.delete_cmd'] as const

/** What trust is recorded against: the config's bytes and those of the scripts it runs. */
export interface TrustedContent {
  /** sha256 of the config file. */
  sha256: string
  /** By path relative to the root: each script's sha256, or null while it does not exist. */
  scripts: Record<string, string | null>
}

interface TrustRecord extends Partial<TrustedContent> {
  trusted_at: string
}

/**
 * Why a repository's config is not trusted as it is now: never trusted, the config
 * changed, scripts it runs changed, or trusted by an svc that recorded no scripts.
 */
export type Untrusted = { kind: 'new' } | { kind: 'config' } | { kind: 'scripts' | 'unrecorded'; paths: string[] }

/** The path of a file inside `root`, relative to it; undefined for one outside. */
function inside(root: string, path: string): string | undefined {
  const rel = relative(root, path)
  return rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : rel
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

async function sha256OfFile(path: string): Promise<string | null> {
  try {
    return sha256Of(await readFile(path))
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException
    // A script that is not there yet: creating it later must need trusting again.
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    // One that cannot be read cannot be vouched for: the check fails, naming the file.
    throw error
  }
}

/**
 * The config's content and that of each file of the repository its hooks name: the
 * program, resolved as hookArgv resolves it, and any argument that is a file there (`sh
 * hooks/launch.sh`). A program on PATH or outside the repository is not the repository's
 * to change, so only its name (in the config) is trusted. Read through symlinks: a
 * link's target is what runs.
 */
export async function trustedContent(root: string, document: RepoDocument): Promise<TrustedContent> {
  const rels = SCRIPT_HOOKS.flatMap((key) => {
    const [program = '', ...args] = hookArgv(document.values[key] ?? '', root)
    const named = isAbsolute(program) ? inside(root, program) : undefined
    // An argument is a plain word unless a file of the repository answers to it.
    const files = args.map((arg) => inside(root, resolve(root, arg))).filter((rel): rel is string => rel !== undefined && isFile(join(root, rel)))
    return [...(named === undefined ? [] : [named]), ...files]
  })
  const scripts = await Promise.all([...new Set(rels)].map(async (rel) => [rel, await sha256OfFile(join(root, rel))] as const))
  // fromEntries defines own properties, so even a script named __proto__ is kept.
  return { sha256: document.sha256, scripts: Object.fromEntries(scripts) }
}

/**
 * The repository configs the user trusted (trusted-repo-configs.json): the sha256 of
 * each one's exact bytes and of the scripts it runs, by repository root, like direnv's
 * `allow`. Read at every check, so a hand edit counts at once; an unreadable file trusts
 * nothing and is never overwritten.
 */
export class TrustedRepoConfigs {
  private readonly writes = new SerialQueue()

  constructor(readonly path: string) {}

  /** Why the repository at `root` has not trusted exactly this content; undefined when it has. */
  async untrusted(root: string, content: TrustedContent): Promise<Untrusted | undefined> {
    const records = await this.read()
    if (!Object.hasOwn(records, root)) return { kind: 'new' }
    const record = records[root] as TrustRecord
    if (record.sha256 !== content.sha256) return { kind: 'config' }
    const paths = Object.keys(content.scripts)
    // A record from before scripts were recorded vouches for none of them.
    if (!isObject(record.scripts)) return paths.length > 0 ? { kind: 'unrecorded', paths } : undefined
    const trusted = record.scripts
    const changed = paths.filter((path) => trusted[path] !== content.scripts[path])
    return changed.length > 0 ? { kind: 'scripts', paths: changed } : undefined
  }

  trust(root: string, content: TrustedContent, at: Date): Promise<void> {
    return this.writes.run(async () => {
      const records = await this.read()
      // Roots are absolute paths, so never a name like __proto__.
      records[root] = { ...content, trusted_at: at.toISOString() }
      await writeFileDurable(this.path, `${JSON.stringify({ repositories: records }, null, 2)}\n`)
    })
  }

  private async read(): Promise<Record<string, TrustRecord>> {
    const text = await readIfExists(this.path)
    if (text === undefined) return {}
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      throw new CorruptFile(`${this.path} is not valid JSON (${(error as Error).message}); fix or remove it`)
    }
    const repositories = isObject(parsed) ? parsed.repositories : undefined
    if (!isObject(repositories)) throw new CorruptFile(`${this.path} must hold {"repositories": {...}}; fix or remove it`)
    return repositories as Record<string, TrustRecord>
  }
}
