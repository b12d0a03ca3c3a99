import { resolve } from 'node:path'
import { InvalidArgumentError } from 'commander'
import { UsageError } from './exit.js'

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value]
}

export function integer(value: string): number {
  const number = Number(value)
  if (value.trim() === '' || !Number.isInteger(number)) throw new InvalidArgumentError('expected an integer')
  return number
}

/**
 * The directory the user ran svc from. `pnpm svc` runs the CLI from the workspace root
 * and passes the caller's directory as INIT_CWD; anywhere else INIT_CWD is only
 * inherited from some outer script and says nothing about this command.
 */
export function callerDirectory(): string {
  return process.env.npm_lifecycle_event === 'svc' && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd()
}

/**
 * The daemon resolves paths on its own filesystem from its own working directory, not
 * the caller's, so a relative path is made absolute here. `~` is left for the daemon to
 * expand, as the API promises.
 */
export function hostPath(path: string): string {
  return path.startsWith('~') ? path : resolve(callerDirectory(), path)
}

/**
 * The one flag given among mutually exclusive ones (keys are the flags as typed). More
 * than one, or none when one is required, is a usage error.
 */
export function oneOf<K extends string>(flags: Record<K, unknown>, required: boolean): K | undefined {
  const names = Object.keys(flags) as K[]
  const given = names.filter((name) => flags[name] !== undefined && flags[name] !== false)
  if (given.length > 1 || (required && given.length === 0)) {
    throw new UsageError(`use ${required ? 'exactly' : 'at most'} one of ${names.join(', ')}`)
  }
  return given[0]
}
