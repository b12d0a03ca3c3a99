import type { Command } from 'commander'
import type { RequestOf, ResponseOf, RouteName } from '@svc/protocol'
import { callDaemon } from './call.js'
import { resolvePaths } from './daemon-process.js'
import { reply } from './reply.js'

export interface SessionRefOptions {
  repoId?: string
  id?: string
}

/** `title`, `repo_id`, `id`: the fields every session-addressing route takes. */
export type SessionRefFields = RequestOf<'KillSession'>
export type Session = ResponseOf<'Snapshot'>['instances'][number]

/** The options that, with the `<title>` argument, pick one session. */
export function withSessionRef(command: Command): Command {
  return command
    .option('--repo-id <id>', 'the repository, when sessions in several share the title')
    .option('--id <id>', 'the session id (wins over the title)')
}

/** The session-addressing request fields (`title`, `repo_id`, `id`). */
export function sessionRef(title: string, options: SessionRefOptions): SessionRefFields {
  return { title, ...(options.repoId ? { repo_id: options.repoId } : {}), ...(options.id ? { id: options.id } : {}) }
}

/**
 * The session object for commands that have no route of their own (attach, tabs list):
 * read from Snapshot and picked the way the daemon picks (the id wins; else the title,
 * within --repo-id when given).
 */
export async function lookupSession(
  title: string,
  options: SessionRefOptions,
  snapshot: (body: RequestOf<'Snapshot'>) => Promise<ResponseOf<'Snapshot'>> = (body) => callDaemon(resolvePaths(), 'Snapshot', body),
): Promise<Session> {
  const { instances } = await snapshot(options.repoId ? { repo_id: options.repoId } : {})
  const matches = instances.filter((session) => (options.id ? session.id === options.id : session.title === title))
  if (matches.length === 1) return matches[0] as Session
  if (matches.length === 0) {
    throw new Error(options.id ? `no session with id ${options.id}` : `no session titled "${title}"${options.repoId ? ` in repository ${options.repoId}` : ''}`)
  }
  throw new Error(`several sessions are titled "${title}"; pass --repo-id (one of ${matches.map((session) => session.repo_id).join(', ')})`)
}

/**
 * One command that addresses a session by `<title>` (with --repo-id / --id) and makes
 * one call: `request` adds its fields to the session reference from the other
 * arguments and options; people read `line`, scripts get the reply as JSON.
 */
export function sessionCall<N extends RouteName, O extends object>(
  command: Command,
  route: N,
  request: (ref: SessionRefFields, args: unknown[], options: O) => RequestOf<N> | Promise<RequestOf<N>>,
  line: (response: ResponseOf<N>, title: string) => string,
): Command {
  return withSessionRef(command).action(async (...params: unknown[]) => {
    const self = params.at(-1) as Command
    const [title, ...rest] = self.processedArgs as [string, ...unknown[]]
    const options = self.opts<O & SessionRefOptions>()
    const response = await callDaemon(resolvePaths(), route, await request(sessionRef(title, options), rest, options))
    reply(self, response, line(response, title))
  })
}
