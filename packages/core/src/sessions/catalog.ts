import type { Static } from 'typebox'
import type { ListBackendsResponse, ListProgramsResponse } from '@svc/protocol'
import { AGENT_NAMES, commandLineOf } from '../agents.js'
import type { Config } from '../config/config.js'
import { InvalidRequest } from '../errors.js'
import { onPath } from './runtime.js'
import { quote } from '@svc/protocol'

/** The agents a session can run, whether each one's command line is installed, and the default. */
export function programs(config: Config, path: string | undefined): Static<typeof ListProgramsResponse> {
  const overrides = config.get('program_overrides')
  return {
    programs: AGENT_NAMES.map((name) => ({ name, available: onPath(commandLineOf(name, overrides), path) })),
    default: config.get('default_program'),
  }
}

const BACKENDS: Static<typeof ListBackendsResponse> = {
  backends: [
    { name: 'local', status: 'available', label: 'Local (tmux on the daemon host)' },
    {
      name: 'hook',
      status: 'unavailable',
      reason: 'remote backends (remote_hooks.provision_cmd / launch_cmd) are not in this version',
      label: 'Remote (provisioned by hooks)',
    },
  ],
  default: 'local',
  default_status: 'available',
}

/** Where a session can run: only `local` in this version; the others say why not. */
export function backends(): Static<typeof ListBackendsResponse> {
  return structuredClone(BACKENDS)
}

/** The backend a create asks for: `force_remote` means `hook` only when `backend` is empty. */
export function backendOf(request: { backend?: string; force_remote?: boolean }): string {
  const backend = request.backend || (request.force_remote ? 'hook' : 'local')
  const entry = BACKENDS.backends.find((candidate) => candidate.name === backend)
  if (entry?.status !== 'available') {
    const reason = entry?.reason ? ` (${entry.reason})` : ''
    throw new InvalidRequest(`backend ${quote(backend)} is not available${reason}; available: local`)
  }
  return backend
}
