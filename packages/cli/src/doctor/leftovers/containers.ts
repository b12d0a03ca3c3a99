import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { DockerEngine } from '@svc/core'
import type { Leftover, LeftoverFinder } from './leftover.js'

/**
 * Containers labelled with this home (the docker backend) whose session no record or
 * intent names. Their workspace may hold work origin lacks, which only a push from inside
 * establishes: --fix keeps them, and the daemon's next start pushes and removes them.
 */
export const containers: LeftoverFinder = async ({ paths, named, settings }) => {
  // No home id yet: this home never made a container.
  const home = (await readFile(join(paths.home, 'home-id'), 'utf8').catch(() => '')).trim()
  if (!home) return []
  const engine = new DockerEngine({ host: () => settings['docker.host'], env: () => process.env, timeoutMs: 10_000 })
  if (await engine.unavailable()) return []
  const listed = await engine.labelled(`svc.home=${home}`).catch(() => [])
  const sessionOf = async (name: string) => (await engine.labels(name))['svc.session']
  const found = await Promise.all(listed.map(async (name) => ({ name, session: await sessionOf(name) })))
  return found
    .filter(({ session }) => session !== undefined && !named.ids.has(session))
    .map(
      ({ name }): Leftover => ({
        kind: 'container',
        what: name,
        why: 'a docker session\'s, whose session no longer exists',
        namedByRecords: true,
        holds: async () => 'its workspace may hold work not on origin',
        stillLeftover: async (now) => !now.ids.has((await sessionOf(name)) ?? ''),
        remove: async () => void (await engine.run(['rm', '-f', name])),
        byHand: `restart the daemon (svc daemon stop && svc daemon start): its start pushes the work of ${name} and removes it; or docker rm -f ${name} to discard it`,
      }),
    )
}
