import type { Command } from 'commander'
import { hostPath } from '../args.js'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { printTable } from '../output.js'
import { reply } from '../reply.js'

/** `repo_path` only when asked: without it the daemon answers with the global defaults. */
function repoOf(options: { repo?: string }): { repo_path?: string } {
  return options.repo ? { repo_path: hostPath(options.repo) } : {}
}

/** `svc programs` and `svc backends`: what `svc sessions create --program/--backend` accept. */
export function programsCommand(program: Command): void {
  program
    .command('programs')
    .description('agents a session can run, whether each is installed, and the default')
    .option('--repo <path>', 'for sessions in this repository')
    .action(async (options: { repo?: string }, command: Command) => {
      const response = await callDaemon(resolvePaths(), 'ListPrograms', repoOf(options))
      reply(command, response, () => {
        printTable(['PROGRAM', 'INSTALLED'], response.programs.map((entry) => [entry.name, entry.available ? 'yes' : 'no']))
        process.stdout.write(`\ndefault: ${response.default}\n`)
      })
    })

  program
    .command('backends')
    .description('where a session can run, whether each is available, and the default')
    .option('--repo <path>', 'for sessions in this repository')
    .action(async (options: { repo?: string }, command: Command) => {
      const response = await callDaemon(resolvePaths(), 'ListBackends', repoOf(options))
      reply(command, response, () => {
        printTable(['BACKEND', 'STATUS', 'REASON'], response.backends.map((entry) => [entry.name, entry.status, entry.reason ?? '']))
        process.stdout.write(`\ndefault: ${response.default}\n`)
      })
    })
}
