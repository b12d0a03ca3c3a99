import { constants } from 'node:fs'
import { access } from 'node:fs/promises'
import { statIfExists } from '@svc/core'
import type { ServicePaths } from '@svc/protocol'
import { fail, note, pass, type Check } from './check.js'

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(3, '0')

/** A file only its owner may use: anything for group or others is too open. */
async function modeCheck(name: string, path: string, wanted: number): Promise<Check | undefined> {
  const stats = await statIfExists(path)
  if (stats === undefined) return undefined
  if ((stats.mode & 0o077) === 0) return pass(name, `${path} is ${octal(stats.mode)}`)
  return fail(name, `${path} is ${octal(stats.mode)}, open to other users`, `chmod ${octal(wanted)} ${path}`)
}

/** SERVICE_HOME: there (or makeable), writable, and private; the socket and the token file private too. */
export async function stateDirectoryChecks(paths: ServicePaths): Promise<Check[]> {
  const home = await statIfExists(paths.home)
  if (home === undefined) return [note('state directory', `${paths.home} does not exist yet`, 'the first svc command that starts the daemon makes it')]
  if (!home.isDirectory()) return [fail('state directory', `${paths.home} is not a directory`, 'move it away or set SERVICE_HOME elsewhere')]
  const writable = await access(paths.home, constants.W_OK | constants.X_OK).then(
    () => pass('state directory', `${paths.home} is writable`),
    () => fail('state directory', `${paths.home} is not writable by this user`, `chown -R "$USER" ${paths.home}`),
  )
  const modes = await Promise.all([
    modeCheck('state directory mode', paths.home, 0o700),
    modeCheck('socket mode', paths.socket, 0o600),
    modeCheck('token file mode', paths.token, 0o600),
  ])
  return [writable, ...modes.filter((check): check is Check => check !== undefined)]
}
