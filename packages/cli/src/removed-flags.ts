import { Option, type Command } from 'commander'
import { REMOVED_KEYS } from '@svc/protocol'
import { UsageError } from './exit.js'

/**
 * Every command refuses the flag of a removed key (`--auto-yes`) with the key's guidance
 * instead of commander's "unknown option". The flag is hidden, and takes an optional
 * value so `--auto-yes=true` is caught too.
 */
export function refuseRemovedFlags(command: Command): void {
  for (const [key, guidance] of Object.entries(REMOVED_KEYS)) {
    const name = key.replaceAll('_', '-')
    command.addOption(new Option(`--${name} [value]`).hideHelp())
    command.on(`option:${name}`, () => {
      throw new UsageError(`--${name}: ${guidance}`)
    })
  }
}
