import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// Where scripts/test-deps.sh (`pnpm test:deps`) installs the real agent CLIs: a cache
// outside the repository, one directory per set of pins. Both compute the directory the
// same way, from the same bytes of agent-clis.json; keep them in step.

const PINS_FILE = fileURLToPath(new URL('../../agent-clis.json', import.meta.url))
const pinsBytes = readFileSync(PINS_FILE)

/** The pinned version of each real agent CLI's npm package, from packages/test-kit/agent-clis.json. */
export const AGENT_CLI_PINS: Readonly<Record<string, string>> = Object.freeze(
  JSON.parse(pinsBytes.toString('utf8')) as Record<string, string>,
)

/**
 * `${SVC_AGENT_CLIS:-${XDG_CACHE_HOME:-$HOME/.cache}/svc/agent-clis}/<first 12 hex digits
 * of the sha256 of agent-clis.json>`, as scripts/test-deps.sh computes it. The CLIs are in
 * its node_modules; it holds a `.complete` file once all were installed and checked.
 */
export function agentClisDir(): string {
  const base = process.env.SVC_AGENT_CLIS || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svc', 'agent-clis')
  return join(base, createHash('sha256').update(pinsBytes).digest('hex').slice(0, 12))
}
