import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { readIfExists, writeFileDurable } from '../infra/durable.js'

/**
 * This SERVICE_HOME's stable id (`$SERVICE_HOME/home-id`, made at first use): what svc
 * labels its containers with (`svc.home`), so a start sweeps only its own.
 */
export async function homeId(home: string): Promise<string> {
  const file = join(home, 'home-id')
  const known = (await readIfExists(file))?.trim()
  if (known) return known
  const id = randomBytes(8).toString('hex')
  await writeFileDurable(file, `${id}\n`, 0o600)
  return id
}
