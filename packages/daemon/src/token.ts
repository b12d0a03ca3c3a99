import { randomBytes } from 'node:crypto'
import { readIfExists, writeFileDurable } from '@svc/core'

/** The TCP listener's bearer token: 32 random bytes, base64url, in a 0600 file. */
export async function ensureToken(path: string): Promise<string> {
  const existing = (await readIfExists(path))?.trim()
  if (existing) return existing
  const token = randomBytes(32).toString('base64url')
  await writeFileDurable(path, `${token}\n`, 0o600)
  return token
}
