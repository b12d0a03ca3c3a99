import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { readIfExists, removeFileDurable, writeFileDurable } from '../infra/durable.js'

/**
 * Hook sessions' bearer tokens, one 0600 file per session id under `remote-tokens/`:
 * never in a session record, so sessions.json and its backups never hold one.
 */
export class RemoteTokens {
  constructor(readonly dir: string) {}

  private fileOf(id: string): string {
    return join(this.dir, id)
  }

  async write(id: string, token: string): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 })
    await writeFileDurable(this.fileOf(id), token, 0o600)
  }

  /** The token, or undefined when its file is gone. */
  async read(id: string): Promise<string | undefined> {
    return (await readIfExists(this.fileOf(id)))?.trim()
  }

  remove(id: string): Promise<void> {
    return removeFileDurable(this.fileOf(id))
  }
}
