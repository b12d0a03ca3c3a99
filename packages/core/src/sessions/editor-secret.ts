import { createHmac, randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const EDITOR_SECRET_FILE = 'editor-origin-secret'

/**
 * The daemon's one long-lived web secret, a 0600 file in the state directory: editor
 * processes outlive a daemon restart (they run in tmux), so what proxies them must be
 * derivable again, and each session's editor origin must stay the same across restarts.
 */
export class EditorSecret {
  private constructor(private readonly key: Buffer) {}

  /** Read once at start (made on first use); `wx` so two writers never both win. */
  static open(home: string): EditorSecret {
    const path = join(home, EDITOR_SECRET_FILE)
    let key: Buffer
    try {
      key = readFileSync(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      key = randomBytes(32)
      writeFileSync(path, key, { mode: 0o600, flag: 'wx' })
    }
    if (key.length < 32) throw new Error(`${path} is shorter than 32 bytes; remove it and restart the daemon to make a new one`)
    return new EditorSecret(key)
  }

  /** HMAC-SHA256 of `parts` joined by NUL; each use names itself first, so uses never collide. */
  derive(...parts: string[]): Buffer {
    return createHmac('sha256', this.key).update(parts.join('\0')).digest()
  }

  /** The password an editor tab's server asks for, which only the daemon's proxy presents. */
  editorPassword(tabId: string): string {
    return this.derive('password', tabId).toString('base64url')
  }
}
