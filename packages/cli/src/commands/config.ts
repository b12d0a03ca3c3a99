import type { Command } from 'commander'
import type { ResponseOf } from '@svc/protocol'
import { runAttached } from '@svc/tui/attached-terminal'
import { callDaemon } from '../call.js'
import { connect, resolvePaths } from '../daemon-process.js'
import { outputOf, printJson, printTable } from '../output.js'
import { UsageError } from '../exit.js'
import { refuseAway } from '../daemon-target.js'
import { reply } from '../reply.js'
import { hostPath } from '../args.js'

function warn(warnings: string[] | undefined): void {
  for (const warning of warnings ?? []) process.stderr.write(`warning: ${warning}\n`)
}

function printChange(change: ResponseOf<'UnsetConfigValue'>, command: Command): void {
  warn(change.warnings)
  if (outputOf(command.optsWithGlobals()).json) return printJson(change)
  const when = change.file
    ? `in ${change.file}`
    : change.applies === 'now'
      ? 'applied now'
      : 'takes effect on the next daemon start'
  process.stdout.write(`${change.key} = ${change.value} (${when})\n`)
}

/** `--repo PATH` as the request's `repo_path`: that repository's .svc/config.json. */
/** A repository of this machine: refused with a daemon on another machine. */
function repoOf(options: { repo?: string }): { repo_path?: string } {
  if (options.repo === undefined) return {}
  refuseAway('svc config --repo')
  return { repo_path: hostPath(options.repo) }
}

const REPO_OPTION = ['--repo <path>', "the repository's .svc/config.json (any path in it): backend, default_program, program_overrides, remote_hooks.*"] as const

type Entry = ResponseOf<'GetConfig'>['entries'][number]

/** One key's value by its name, an alias, or `map_key.entry` for one map entry. */
function valueOf(entries: Entry[], key: string): string {
  const entry = entries.find((candidate) => candidate.key === key || candidate.aliases?.includes(key))
  if (entry) return entry.value
  const map = entries.find((candidate) => candidate.type === 'map' && key.startsWith(`${candidate.key}.`))
  if (map) return (JSON.parse(map.value) as Record<string, string>)[key.slice(map.key.length + 1)] ?? ''
  throw new UsageError(`unknown config key "${key}"; "svc config get" lists every key`)
}

export function configCommand(program: Command): void {
  const config = program
    .command('config')
    .description("config: global (config.json under SERVICE_HOME), or a repository's (.svc/config.json) with --repo")
  config
    .command('get [key]')
    .description('show every key, or one key, with its value, default and purpose; with --repo, the values in force for that repository')
    .option(...REPO_OPTION)
    .action(async (key: string | undefined, options: { repo?: string }, command: Command) => {
      const response = await callDaemon(resolvePaths(), 'GetConfig', repoOf(options))
      const { entries, path, repo_file, repo_trusted, warnings } = response
      warn(warnings)
      const json = outputOf(command.optsWithGlobals()).json
      if (key !== undefined) {
        const value = valueOf(entries, key)
        return json ? printJson({ key, value }) : void process.stdout.write(`${value}\n`)
      }
      if (json) return printJson({ entries, path, ...(repo_file ? { repo_file, repo_trusted } : {}) })
      process.stdout.write(`${path}\n`)
      if (repo_file) process.stdout.write(`${repo_file}${repo_trusted ? '' : ' (not trusted: svc projects trust)'}\n`)
      process.stdout.write('\n')
      printTable(
        ['KEY', 'VALUE', 'SOURCE', 'DEFAULT', 'TYPE', 'PURPOSE'],
        entries.map((entry) => [
          entry.key,
          entry.value,
          entry.scope === 'repo' && !repo_file ? 'repo only' : entry.source,
          entry.default,
          entry.type,
          entry.purpose,
        ]),
      )
    })
  config
    .command('set <key> <value>')
    .description("set a key (validated, atomic) and apply it to the running daemon; with --repo, in the repository's .svc/config.json")
    .option(...REPO_OPTION)
    .action(async (key: string, value: string, options: { repo?: string }, command: Command) => {
      printChange(await callDaemon(resolvePaths(), 'SetConfigValue', { key, value, ...repoOf(options) }), command)
    })
  config
    .command('unset <key>')
    .description("clear a key under every spelling, back to its default; with --repo, from the repository's .svc/config.json")
    .option(...REPO_OPTION)
    .action(async (key: string, options: { repo?: string }, command: Command) => {
      printChange(await callDaemon(resolvePaths(), 'UnsetConfigValue', { key, ...repoOf(options) }), command)
    })
  config
    .command('assistant')
    .description("talk to the config assistant: an agent (default_program) on the daemon's machine, briefed with every key, that changes settings with \"svc config set\" and explains each change")
    .addHelpText('after', "\nThe terminal follows the assistant through the daemon (Ctrl-\\ detaches). It is ended 60 s after the last terminal on it detaches.")
    .action(async (_options: unknown, command: Command) => {
      const client = await connect(resolvePaths())
      const opened = await client.configAssistant.open()
      if (!process.stdin.isTTY || !process.stdout.isTTY || outputOf(command.optsWithGlobals()).json) {
        reply(command, opened, `the config assistant runs in tmux session ${opened.session_name} on the daemon's machine; run "svc config assistant" in a terminal to talk to it`)
        return
      }
      const ended = await runAttached(await client.configAssistant.stream())
      process.stdout.write(
        ended === 'detached'
          ? '[detached; the config assistant is ended 60 s after the last terminal on it detaches, and "svc config assistant" comes back to it until then]\n'
          : '[the config assistant ended]\n',
      )
    })
}
