import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { removeFileDurable, SshConnection } from '@svc/core'
import type { Leftover, LeftoverFinder } from './leftover.js'

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => [])
}

/**
 * Hook sessions' ssh directories (known_hosts, the ControlMaster's socket and log), ssh
 * hosts' directories (a shared master's) no session runs on, and tokens whose session is gone. The daemon sweeps them at its start; doctor names them
 * meanwhile, and --fix ends a master still running for one before removing it.
 */
export const remoteLeftovers: LeftoverFinder = async ({ paths, named, settings }) => {
  const unnamed = (ids: string[]) => ids.filter((id) => !named.ids.has(id))
  const runner = { command: () => settings.remote_ssh_command, env: () => process.env, timeoutMs: 10_000 }
  const sshDirs = unnamed(await entries(paths.remoteSsh)).map(
    (id): Leftover => ({
      kind: 'ssh directory',
      what: join(paths.remoteSsh, id),
      why: 'of a hook session that no longer exists (its master, if one runs, is ended with it)',
      namedByRecords: true,
      stillLeftover: async (now) => !now.ids.has(id) && (await entries(paths.remoteSsh)).includes(id),
      remove: async () => {
        const dir = join(paths.remoteSsh, id)
        // `-O exit` finds the master by its control path alone: no host is asked.
        await new SshConnection(dir, { host: 'localhost', remote_port: 0 }, runner).exit()
        await rm(dir, { recursive: true, force: true })
      },
    }),
  )
  const tokens = unnamed(await entries(paths.remoteTokens)).map(
    (id): Leftover => ({
      kind: 'remote token',
      what: join(paths.remoteTokens, id),
      why: 'of a hook session that no longer exists',
      namedByRecords: true,
      stillLeftover: async (now) => !now.ids.has(id) && (await entries(paths.remoteTokens)).includes(id),
      remove: () => removeFileDurable(join(paths.remoteTokens, id)),
    }),
  )
  const hostDirs = (await entries(paths.sshHosts))
    .filter((name) => !named.sshHosts.has(name))
    .map(
      (name): Leftover => ({
        kind: 'ssh host directory',
        what: join(paths.sshHosts, name),
        why: 'of an ssh host no session runs on (its shared master, if one runs, is ended with it)',
        namedByRecords: true,
        stillLeftover: async (now) => !now.sshHosts.has(name) && (await entries(paths.sshHosts)).includes(name),
        remove: async () => {
          const dir = join(paths.sshHosts, name)
          await new SshConnection(dir, { host: 'localhost', remote_port: 0 }, runner).exit()
          await rm(dir, { recursive: true, force: true })
        },
      }),
    )
  return [...sshDirs, ...hostDirs, ...tokens]
}
