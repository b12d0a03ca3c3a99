import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { agentClisDir } from './cache.js'

/** The command of a real agent CLI where `pnpm test:deps` installs it (see cache.ts). */
export function agentCli(name: 'claude' | 'codex' | 'gemini' | 'opencode'): string {
  const path = join(agentClisDir(), 'node_modules', '.bin', name)
  if (!existsSync(path)) throw new Error(`${name} is not installed: run pnpm test:deps`)
  return path
}
