import type { EventEmitter } from 'node:events'
import type { Command, Help, Option } from 'commander'
import { program } from './program.js'

/** Help text as markdown prose: `Ctrl-\)` must not escape the parenthesis, nor `<slug>` open an HTML tag. */
function prose(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('<', '&lt;').replaceAll('*', '\\*')
}

/** A table cell: pipes would end the cell, newlines the row. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}

/** The full name, `svc sessions list`, from the command and its parents. */
function fullName(command: Command): string {
  const names: string[] = []
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name())
  return names.join(' ')
}

function optionText(option: Option): string {
  const notes = [
    option.argChoices ? `one of ${option.argChoices.join(', ')}` : '',
    option.defaultValue !== undefined ? `default: ${JSON.stringify(option.defaultValue)}` : '',
  ].filter((note) => note !== '')
  return [option.description, ...notes.map((note) => `(${note})`)].filter((part) => part !== '').join(' ')
}

/**
 * The text `addHelpText('after', …)` attached, as `--help` prints it below the options.
 * commander keeps it only as an `afterHelp` listener (a Command is an EventEmitter; its typings omit that).
 */
function helpAfter(command: Command): string {
  const emitter = command as unknown as EventEmitter
  let text = ''
  emitter.emit('afterHelp', { error: false, command, write: (chunk: string) => (text += chunk) })
  return text.trim()
}

function section(command: Command, help: Help, depth: number): string[] {
  const lines = [`${'#'.repeat(depth)} \`${fullName(command)}\``, '', prose(command.description()), '']
  lines.push('```text', help.commandUsage(command), '```', '')
  const args = help.visibleArguments(command)
  if (args.length > 0) {
    lines.push('| Argument | What |', '|---|---|')
    for (const arg of args) lines.push(`| \`${cell(help.argumentTerm(arg))}\` | ${cell(prose(help.argumentDescription(arg)))} |`)
    lines.push('')
  }
  // `-h, --help` is on every command; it is said once, at the top.
  const options = help.visibleOptions(command).filter((option) => option.long !== '--help')
  if (options.length > 0) {
    lines.push('| Option | What |', '|---|---|')
    for (const option of options) lines.push(`| \`${cell(option.flags)}\` | ${cell(prose(optionText(option)))} |`)
    lines.push('')
  }
  const after = helpAfter(command)
  if (after !== '') lines.push('```text', after, '```', '')
  const subcommands = help.visibleCommands(command).filter((sub) => sub.name() !== 'help')
  for (const sub of subcommands) lines.push(...section(sub, help, Math.min(depth + 1, 4)))
  return lines
}

/** docs/cli.md's generated part: every command, argument and option of `svc`, walked from the commander tree. */
export function cliReference(svc: Command = program()): string {
  const help = svc.createHelp()
  return section(svc, help, 2).join('\n').trimEnd()
}
