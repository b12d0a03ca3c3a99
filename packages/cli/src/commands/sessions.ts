import { Command, InvalidArgumentError } from 'commander'
import msParse from 'ms'
import type { RequestOf } from '@svc/protocol'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { outputOf, printJson, printTable } from '../output.js'

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value]
}

function positiveInt(value: string): number {
  const number = Number(value)
  if (!Number.isInteger(number)) throw new InvalidArgumentError('expected an integer')
  return number
}

/** A timestamp as given, or a duration such as 2h meaning "that long ago". */
function since(value: string): string {
  const ago = msParse(value as msParse.StringValue)
  return typeof ago === 'number' && Number.isFinite(ago) ? new Date(Date.now() - ago).toISOString() : value
}

export function sessionsCommand(program: Command): void {
  const sessions = program.command('sessions').description('agent sessions')
  sessions
    .command('list')
    .description('list sessions (Snapshot)')
    .option('--live', 'leave out archived sessions')
    .option('--status <state>', 'only this state (running, ready, lost, dead, archived, limit-reached); repeatable', collect)
    .option('--since <time>', 'created after an RFC 3339 time, or within a duration such as 2h')
    .option('--limit <n>', 'at most n sessions', positiveInt)
    .option('--repo <repo_id>', 'only this repository')
    .action(async (options: { live?: boolean; status?: string[]; since?: string; limit?: number; repo?: string }, command: Command) => {
      const request: RequestOf<'Snapshot'> = {
        ...(options.repo ? { repo_id: options.repo } : {}),
        ...(options.live ? { live: true } : {}),
        ...(options.status ? { statuses: options.status } : {}),
        ...(options.since ? { created_after: since(options.since) } : {}),
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
      }
      const snapshot = await callDaemon(resolvePaths(), 'Snapshot', request)
      if (outputOf(command.optsWithGlobals()).json) return printJson(snapshot)
      if (snapshot.instances.length === 0) return void process.stdout.write('no sessions\n')
      printTable(
        ['TITLE', 'STATE', 'IDLE', 'PROGRAM', 'BRANCH', 'REPO', 'UPDATED'],
        snapshot.instances.map((session) => [
          session.title,
          session.liveness_name || session.status_name,
          session.idle_reason ?? '',
          session.program,
          session.branch,
          session.repo_id,
          session.updated_at,
        ]),
      )
    })
}
