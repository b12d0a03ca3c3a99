import type { Command } from 'commander'
import type { RequestOf, ResponseOf } from '@svc/protocol'
import { hostPath } from '../args.js'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { printTable } from '../output.js'
import { reply } from '../reply.js'

type Choices = 'ListPrograms' | 'ListBackends'

/** A command listing what one `svc sessions create` option accepts, and its default. */
function choicesCommand<N extends Choices>(
  program: Command,
  name: string,
  description: string,
  route: N,
  table: (response: ResponseOf<N>) => [string[], string[][]],
): void {
  program
    .command(name)
    .description(description)
    .option('--repo <path>', 'for sessions in this repository')
    .action(async (options: { repo?: string }, command: Command) => {
      // Without repo_path the daemon answers with the global defaults.
      const request = (options.repo ? { repo_path: hostPath(options.repo) } : {}) as RequestOf<N>
      // Both replies carry `default`; TypeScript cannot see that through the generic.
      const response = (await callDaemon(resolvePaths(), route, request)) as ResponseOf<N> & { default: string }
      reply(command, response, () => {
        printTable(...table(response))
        process.stdout.write(`\ndefault: ${response.default}\n`)
      })
    })
}

/** `svc programs` and `svc backends`: what `svc sessions create --program/--backend` accept. */
export function programsCommand(program: Command): void {
  choicesCommand(program, 'programs', 'agents a session can run, whether each is installed, and the default', 'ListPrograms', (response) => [
    ['PROGRAM', 'INSTALLED', 'PROFILE'],
    response.programs.map((entry) => [entry.name, entry.available ? 'yes' : 'no', entry.profile || '(none: any screen)']),
  ])
  choicesCommand(program, 'backends', 'where a session can run, whether each is available, and the default', 'ListBackends', (response) => [
    ['BACKEND', 'STATUS', 'HOSTS', 'REASON'],
    response.backends.map((entry) => [entry.name, entry.status, entry.hosts?.join(', ') ?? '', entry.reason ?? '']),
  ])
}
