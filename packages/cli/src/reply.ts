import type { Command } from 'commander'
import { outputOf, printJson } from './output.js'

/**
 * Prints what the daemon answered: the reply itself as JSON for scripts, or for people
 * a line (a string) or whatever `human` prints.
 */
export function reply(command: Command, data: unknown, human: string | (() => void)): void {
  if (outputOf(command.optsWithGlobals()).json) return printJson(data)
  if (typeof human === 'string') process.stdout.write(`${human}\n`)
  else human()
}
