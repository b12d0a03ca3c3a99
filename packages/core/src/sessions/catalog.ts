import type { Static } from 'typebox'
import type { ListBackendsResponse, ListProgramsResponse } from '@svc/protocol'
import { AGENT_NAMES, commandLineOf } from '../agents/agent.js'
import { profileFor } from '../agents/profiles.js'
import type { InForce } from '../config/resolver.js'
import type { Settings } from '../config/keys.js'
import { InvalidRequest } from '../errors.js'
import { onPath } from './runtime.js'
import { quote } from '@svc/protocol'

/**
 * The agents a session can run, whether each one's command line is installed, the
 * profile its screens are read with, and the default, as set for a repository (even before its config is trusted: nothing runs here).
 */
export function programs(settings: Settings, path: string | undefined): Static<typeof ListProgramsResponse> {
  const overrides = settings.program_overrides
  return {
    programs: AGENT_NAMES.map((name) => {
      const commandLine = commandLineOf(name, overrides)
      return { name, available: onPath(commandLine, path), profile: profileFor(commandLine)?.name ?? '' }
    }),
    default: settings.default_program,
  }
}

type Backends = Static<typeof ListBackendsResponse>
type Backend = Backends['backends'][number]

/**
 * Whether the hook backend can run sessions of a repository, and why not: its config
 * must be trusted and set exactly one of provision_cmd and launch_cmd, and delete_cmd.
 */
function hookBackend({ settings, distrust }: InForce): Backend {
  const label = 'Remote (provisioned by hooks)'
  const launch = settings['remote_hooks.launch_cmd'].trim()
  const provision = settings['remote_hooks.provision_cmd'].trim()
  const starter = provision ? 'remote_hooks.provision_cmd' : 'remote_hooks.launch_cmd'
  const reason = distrust
    ? distrust
    : launch && provision
      ? 'remote_hooks.launch_cmd and remote_hooks.provision_cmd are both set; set exactly one'
      : !launch && !provision
        ? "the repository's .svc/config.json sets neither remote_hooks.provision_cmd nor remote_hooks.launch_cmd"
        : !settings['remote_hooks.delete_cmd'].trim()
          ? `remote_hooks.delete_cmd is not set; it is required beside ${starter}`
          : undefined
  return reason ? { name: 'hook', status: 'unavailable', reason, label } : { name: 'hook', status: 'available', label }
}

/**
 * Whether the docker backend can run sessions of a repository, and why not: the engine
 * must answer (`engineDown` says why it does not) and docker.image be set.
 */
function dockerBackend({ settings }: InForce, engineDown: string | undefined): Backend {
  const label = 'Docker (a container of docker.image)'
  const reason = engineDown ?? (settings['docker.image'].trim() ? undefined : 'docker.image is not set: svc image build makes an image with node, git and tmux, then svc config set docker.image TAG')
  return reason ? { name: 'docker', status: 'unavailable', reason, label } : { name: 'docker', status: 'available', label }
}

/**
 * Whether the ssh backend can run sessions of a repository, and why not: ssh_hosts must
 * name the host a create picks (`host`, else the repository's ssh.host). Its hosts are
 * listed either way, so a client can offer them.
 */
function sshBackend({ settings }: InForce, host: string | undefined): Backend {
  const label = 'On an ssh host (ssh_hosts)'
  const names = Object.keys(settings.ssh_hosts).sort()
  const picked = host || settings['ssh.host']
  const hosts = picked && names.includes(picked) ? [picked, ...names.filter((name) => name !== picked)] : names
  const reason = names.length === 0
    ? 'no ssh_hosts are set; add one with "svc hosts add NAME USER@HOST --scan"'
    : !picked
      ? `no host is picked: pass host (--host NAME) or set ssh.host to one of ${names.join(', ')}`
      : !names.includes(picked)
        ? `ssh host ${quote(picked)} is not in ssh_hosts; known: ${names.join(', ')}`
        : undefined
  return { name: 'ssh', status: reason ? 'unavailable' : 'available', ...(reason ? { reason } : {}), label, hosts }
}

function backendList(inForce: InForce, engineDown: string | undefined, host?: string): Backend[] {
  return [{ name: 'local', status: 'available', label: 'Local (tmux on the daemon host)' }, hookBackend(inForce), dockerBackend(inForce, engineDown), sshBackend(inForce, host)]
}

/** The backend a create asks for: `force_remote` means `hook` only when `backend` is empty; neither means the repository's `backend`. */
export function requestedBackend(request: { backend?: string; force_remote?: boolean }, settings: InForce['settings']): string {
  return request.backend || (request.force_remote ? 'hook' : settings.backend)
}

/** Where a session of the repository can run, why not where it cannot, and the repository's default; `engineDown` says why the Docker Engine does not answer. */
export function backends(inForce: InForce, engineDown: string | undefined): Backends {
  const entries = backendList(inForce, engineDown)
  const fallback = entries.find((entry) => entry.name === inForce.settings.backend)
  return { backends: entries, default: inForce.settings.backend, default_status: fallback?.status ?? 'unavailable' }
}

/** The backend a create asks for (see requestedBackend), refused, saying why, when it cannot run; `engineDown` as for backends. */
export function backendOf(request: { backend?: string; force_remote?: boolean; host?: string }, inForce: InForce, engineDown?: string): string {
  const entries = backendList(inForce, engineDown, request.host)
  const backend = requestedBackend(request, inForce.settings)
  const entry = entries.find((candidate) => candidate.name === backend)
  if (entry?.status !== 'available') {
    const reason = entry?.reason ? ` (${entry.reason})` : ''
    const available = entries.filter((candidate) => candidate.status === 'available').map((candidate) => candidate.name)
    throw new InvalidRequest(`backend ${quote(backend)} is not available${reason}; available: ${available.join(', ')}`)
  }
  if (request.host && !entry.hosts) throw new InvalidRequest(`host ${quote(request.host)} names an ssh_hosts entry, which only backend "ssh" runs on; this create's backend is ${quote(backend)}`)
  return backend
}
