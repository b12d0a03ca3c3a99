import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { removeFileDurable, SshConnection, sshEngine } from '@svc/core'
import type { Leftover, LeftoverFinder } from './leftover.js'
import type { Named } from './named.js'

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => [])
}

/**
 * Hook sessions' ssh directories (known_hosts, the ControlMaster's socket and log), ssh
 * hosts' and remote docker engines' directories (a shared master's) no session runs on
 * (an engine's: nor docker.host names, as the daemon's docker commands use its master),
 * and tokens whose session is gone. The daemon sweeps them at its start; doctor names
 * them meanwhile, and --fix ends a master still running for one before removing it.
 */
export const remoteLeftovers: LeftoverFinder = async ({ paths, named, settings }) => {
  const runner = { command: () => settings.remote_ssh_command, env: () => process.env, timeoutMs: 10_000 }
  /** A directory holding a ControlMaster's socket and pinned known_hosts, in `parent`, while `isNamed` does not name it. */
  const masterDirs = async (parent: string, isNamed: (now: Named, name: string) => boolean, kind: string, why: string): Promise<Leftover[]> =>
    (await entries(parent))
      .filter((name) => !isNamed(named, name))
      .map((name) => ({
        kind,
        what: join(parent, name),
        why,
        namedByRecords: true,
        stillLeftover: async (now) => !isNamed(now, name) && (await entries(parent)).includes(name),
        remove: async () => {
          const dir = join(parent, name)
          // `-O exit` finds the master by its control path alone: no host is asked.
          await new SshConnection(dir, { host: 'localhost', remote_port: 0 }, runner).exit()
          await rm(dir, { recursive: true, force: true })
        },
      }))
  const sshDirs = await masterDirs(paths.remoteSsh, (now, id) => now.ids.has(id), 'ssh directory', 'of a hook session that no longer exists (its master, if one runs, is ended with it)')
  const hostDirs = await masterDirs(paths.sshHosts, (now, host) => now.sshHosts.has(host), 'ssh host directory', 'of an ssh host no session runs on (its shared master, if one runs, is ended with it)')
  const engine = engineName(settings['docker.host'])
  const engineDirs = await masterDirs(paths.dockerSsh, (now, name) => now.engines.has(name) || name === engine, 'docker engine ssh directory', 'of a docker.host engine on another machine that neither docker.host nor any session names (its master, if one runs, is ended with it)')
  const tokens = (await entries(paths.remoteTokens))
    .filter((id) => !named.ids.has(id))
    .map(
      (id): Leftover => ({
        kind: 'remote token',
        what: join(paths.remoteTokens, id),
        why: 'of a hook session that no longer exists',
        namedByRecords: true,
        stillLeftover: async (now) => !now.ids.has(id) && (await entries(paths.remoteTokens)).includes(id),
        remove: () => removeFileDurable(join(paths.remoteTokens, id)),
      }),
    )
  return [...sshDirs, ...hostDirs, ...engineDirs, ...tokens]
}

/** The directory name of docker.host's engine when it is an ssh:// one (a malformed one names none). */
function engineName(host: string): string | undefined {
  try {
    return sshEngine(host)?.name
  } catch {
    return undefined
  }
}
