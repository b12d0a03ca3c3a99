import { readIfExists, writeFileDurable } from '../infra/durable.js'
import { CorruptFile } from '../errors.js'
import { SerialQueue } from '../serial.js'
import { isObject } from './document.js'

interface TrustRecord {
  sha256: string
  trusted_at: string
}

/**
 * The repository configs the user trusted (trusted-repo-configs.json): the sha256 of
 * each one's exact bytes, by repository root, like direnv's `allow`. Read at every check,
 * so a hand edit counts at once; an unreadable file trusts nothing and is never overwritten.
 */
export class TrustedRepoConfigs {
  private readonly writes = new SerialQueue()

  constructor(readonly path: string) {}

  /** Whether the repository at `root` has trusted a config with exactly this sha256. */
  async trusts(root: string, sha256: string): Promise<boolean> {
    const record = (await this.read())[root]
    return record?.sha256 === sha256
  }

  /** Whether some other content of the repository's config was trusted before. */
  async trustedBefore(root: string): Promise<boolean> {
    return Object.hasOwn(await this.read(), root)
  }

  trust(root: string, sha256: string, at: Date): Promise<void> {
    return this.writes.run(async () => {
      const records = await this.read()
      // Roots are absolute paths, so never a name like __proto__.
      records[root] = { sha256, trusted_at: at.toISOString() }
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
