import type { Static } from 'typebox'
import type { ListBackendsResponse, ListProgramsResponse } from '@svc/protocol'
import { AGENT_NAMES, commandLineOf } from '../agents.js'
import type { InForce } from '../config/resolver.js'
import type { Settings } from '../config/keys.js'
import { InvalidRequest } from '../errors.js'
import { onPath } from './runtime.js'
import { quote } from '@svc/protocol'

/**
 * The agents a session can run, whether each one's command line is installed, and the
 * default, as set for a repository (even before its config is trusted: nothing runs here).
 */
export function programs(settings: Settings, path: string | undefined): Static<typeof ListProgramsResponse> {
  const overrides = settings.program_overrides
  return {
    programs: AGENT_NAMES.map((name) => ({ name, available: onPath(commandLineOf(name, overrides), path) })),
    default: settings.default_program,
  }
}

type Backends = Static<typeof ListBackendsResponse>

const BACKENDS: Backends['backends'] = [
  { name: 'local', status: 'available', label: 'Local (tmux on the daemon host)' },
  {
    name: 'hook',
    status: 'unavailable',
    reason: 'remote backends (remote_hooks.provision_cmd / launch_cmd) are not in this version',
    label: 'Remote (provisioned by hooks)',
  },
]

/**
 * Where a session can run: only `local` in this version; the others say why not (and
 * that the repository's config is not trusted, when so). The default is the
 * repository's `backend`.
 */
export function backends({ settings, distrust }: InForce): Backends {
  const entries = BACKENDS.map((entry) =>
    entry.name === 'hook' && distrust ? { ...entry, reason: `${entry.reason}; ${distrust}` } : { ...entry },
  )
  const fallback = entries.find((entry) => entry.name === settings.backend)
  return { backends: entries, default: settings.backend, default_status: fallback?.status ?? 'unavailable' }
}

/**
 * The backend a create asks for: `force_remote` means `hook` only when `backend` is
 * empty; neither means the repository's `backend`.
 */
export function backendOf(request: { backend?: string; force_remote?: boolean }, fallback: string): string {
  const backend = request.backend || (request.force_remote ? 'hook' : fallback)
  const entry = BACKENDS.find((candidate) => candidate.name === backend)
  if (entry?.status !== 'available') {
    const reason = entry?.reason ? ` (${entry.reason})` : ''
    throw new InvalidRequest(`backend ${quote(backend)} is not available${reason}; available: local`)
  }
  return backend
}
