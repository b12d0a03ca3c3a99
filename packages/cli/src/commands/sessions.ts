import type { Command } from 'commander'
import msParse from 'ms'
import { ago, projectName, type RequestOf } from '@svc/protocol'
import { collect, hostPath, integer, oneOf } from '../args.js'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { deliveryNote } from '../delivery.js'
import { UsageError } from '../exit.js'
import { printTable } from '../output.js'
import { reply } from '../reply.js'
import { lookupSession, sessionCall, type Session, type SessionRefOptions } from '../session-ref.js'
import { attachCommand } from './attach.js'
import { promptCommands } from './prompts.js'

/** A timestamp as given, or a duration such as 2h meaning "that long ago". */
function since(value: string): string {
  const ago = msParse(value as msParse.StringValue)
  return typeof ago === 'number' && Number.isFinite(ago) ? new Date(Date.now() - ago).toISOString() : value
}

/**
 * The sessions as a table for people: a project by its directory's name (with its repo
 * id when two projects share one), times as "3m ago". Scripts read `--json`, unchanged.
 */
function printSessions(instances: Session[]): void {
  const now = Date.now()
  /** Directory name → the repo ids seen under it. */
  const repos = new Map<string, Set<string>>()
  for (const session of instances) {
    const name = projectName(session.repo_path)
    repos.set(name, (repos.get(name) ?? new Set()).add(session.repo_id))
  }
  const project = (session: Session) => {
    const name = projectName(session.repo_path)
    return (repos.get(name)?.size ?? 0) > 1 ? `${name} (${session.repo_id})` : name
  }
  printTable(
    ['TITLE', 'STATE', 'IDLE', 'PROGRAM', 'BRANCH', 'PROJECT', 'UPDATED'],
    instances.map((session) => [
      session.title,
      session.liveness_name || session.status_name,
      session.idle_reason ?? '',
      session.program,
      session.branch,
      project(session),
      ago(session.updated_at, now),
    ]),
  )
}

function listCommand(sessions: Command): void {
  sessions
    .command('list')
    .description('list sessions (Snapshot)')
    .option('--live', 'leave out archived sessions')
    .option('--status <state>', 'only this state (running, ready, lost, dead, archived, limit-reached); repeatable', collect)
    .option('--since <time>', 'created after an RFC 3339 time, or within a duration such as 2h')
    .option('--limit <n>', 'at most n sessions', integer)
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
      reply(command, snapshot, () =>
        snapshot.instances.length === 0 ? void process.stdout.write('no sessions\n') : printSessions(snapshot.instances),
      )
    })
}

interface CreateOptions {
  title?: string
  titleBase?: string
  repo?: string
  program?: string
  prompt?: string
  inPlace?: boolean
  backend?: string
  host?: string
  account?: string
}

function createCommand(sessions: Command): void {
  sessions
    .command('create [title]')
    .description('create a session: a git worktree and branch next to the repository, the agent in tmux, an optional first prompt')
    .option('--title <title>', 'its title, as the argument: letters, digits, "-" and "_", unused in the repository (default: a suggested name)')
    .option('--title-base <base>', 'a title made unique with a suffix (-2, -3, …) when taken')
    .option('--repo <path>', 'the repository (default: the current directory)')
    .option('--program <program>', 'a known agent (claude, codex, …; see svc programs) or any command line (default: default_program)')
    .option('--prompt <text>', 'the first prompt, pasted once the agent has drawn its screen')
    .option('--in-place', 'run in the repository itself: no worktree, no branch')
    .option('--backend <backend>', 'where it runs (see svc backends; default local)')
    .option('--host <name>', 'with --backend ssh: the ssh_hosts host it runs on (see svc hosts list; default: the repository\'s ssh.host)')
    .option('--account <name>', 'the agent account to run under')
    .addHelpText(
      'after',
      `
Examples:
  svc sessions create fix-parser --prompt "make the parser accept trailing commas"
  svc sessions create --title-base review --repo ~/src/app --program codex
  svc sessions create fix-ci --backend ssh --host box --prompt "make CI green"`,
    )
    .action(async (given: string | undefined, options: CreateOptions, command: Command) => {
      if (given !== undefined && options.title !== undefined && given !== options.title) {
        throw new UsageError(`two titles given: "${given}" and --title "${options.title}"; give one`)
      }
      const title = given ?? options.title
      oneOf({ '--title': title, '--title-base': options.titleBase }, false)
      const { instance } = await callDaemon(resolvePaths(), 'CreateSession', {
        repo_path: hostPath(options.repo ?? '.'),
        ...(title ? { title } : {}),
        ...(options.titleBase ? { title_base: options.titleBase } : {}),
        ...(options.program ? { program: options.program } : {}),
        ...(options.prompt ? { prompt: options.prompt } : {}),
        ...(options.inPlace ? { in_place: true } : {}),
        ...(options.backend ? { backend: options.backend } : {}),
        ...(options.host ? { host: options.host } : {}),
        ...(options.account ? { account: options.account } : {}),
      })
      const status = instance.last_prompt_delivery_status
      const note = status ? deliveryNote(instance.title, status, instance.last_prompt_failure) : undefined
      reply(command, { instance }, () => {
        printSessions([instance])
        process.stdout.write(`\nworktree: ${instance.remote_path ?? instance.path}\n`)
        if (note) process.stdout.write(`${instance.title}: ${note}\n`)
      })
    })
}

/** Archive, the restores, resume and kill: one call each on a session. */
function lifecycleCommands(sessions: Command): void {
  sessionCall(
    sessions.command('archive <title>').description('stop a session and move its worktree to the archive; the record and branch are kept'),
    'ArchiveSession',
    (ref) => ref,
    (response, title) => `archived ${title} to ${response.archived_path}`,
  )
  sessionCall(
    sessions.command('restore-archived <title>').description('move an archived worktree back next to the repository and start the agent again'),
    'RestoreArchived',
    (ref) => ref,
    (response, title) => `restored ${title} at ${response.worktree_path}`,
  )
  sessionCall(
    sessions
      .command('restore <title>')
      .description('restore an archived, lost or dead session (RestoreSession)')
      .option('--force-reap', 'replace the runtime even when the session is live')
      .option('--expect-boot-id <id>', 'refuse unless the daemon still has this boot id (from svc sessions list --json)'),
    'RestoreSession',
    (ref, _args, options: { forceReap?: boolean; expectBootId?: string }) => ({
      ...ref,
      ...(options.forceReap ? { force_reap: true } : {}),
      ...(options.expectBootId ? { expected_daemon_boot_id: options.expectBootId } : {}),
    }),
    (_response, title) => `restored ${title}`,
  )
  sessionCall(
    sessions.command('resume <title>').description('resume a session parked at a usage limit, or deliver again a handoff brief that may not have arrived (ResumeFromLimit)'),
    'ResumeFromLimit',
    (ref) => ref,
    (_response, title) => `resumed ${title}`,
  )
  sessionCall(
    sessions
      .command('handoff <title>')
      .description('continue a session in place under another agent and/or account: same worktree, branch and tmux session; the new agent gets a mission brief')
      .option('--to <agent>', 'the agent that takes over (claude, codex, …); default: the current one, with --account')
      .option('--account <name>', "the account to run under (one of that agent's, see svc accounts list)")
      .option('--brief <text>', "the goal, for the brief (default: the session's first prompt)")
      .addHelpText(
        'after',
        `
Example: the agent hit its usage limit, or is still working (it is stopped mid-work,
its changes kept); codex carries on where it stopped
  svc sessions handoff fix-parser --to codex`,
      ),
    'HandoffSession',
    (ref, _args, options: { to?: string; account?: string; brief?: string }) => ({
      ...ref,
      ...(options.to ? { to: options.to } : {}),
      ...(options.account !== undefined ? { account: options.account } : {}),
      ...(options.brief ? { brief: options.brief } : {}),
    }),
    (response, title) => {
      const who = ({ program, account }: { program: string; account: string }) => (account ? `${program} (${account})` : program)
      return `${title}: handed from ${who(response.from)} to ${who(response.to)} at ${response.head_sha.slice(0, 12)}`
    },
  )
  sessionCall(
    sessions
      .command('kill <title>')
      .description('tear a session down: its tmux sessions, its worktree, the branch the daemon created, its record (a hook session: the remote session, then delete_cmd)')
      .option('--force-reap', "a hook session whose host is gone: run delete_cmd and remove it anyway (what its remote did not push is lost)")
      .option('--discard', 'a hook session whose work could not be put on origin: delete its workspace and that work with it'),
    'KillSession',
    async (ref, _args, options: { forceReap?: boolean; discard?: boolean } & SessionRefOptions) => {
      if (options.discard) {
        const { remote_path: where } = await lookupSession(ref.title ?? '', options)
        process.stderr.write(`discarding ${where ?? 'the workspace of this session'}: the work there that is not on origin (commits and uncommitted files) is deleted with it\n`)
      }
      return { ...ref, ...(options.forceReap ? { force_reap: true } : {}), ...(options.discard ? { discard: true } : {}) }
    },
    (_response, title) => `killed ${title}`,
  )
}

export function sessionsCommand(program: Command): void {
  const sessions = program.command('sessions').description('agent sessions: a git worktree and branch each, with the agent in tmux')
  listCommand(sessions)
  createCommand(sessions)
  promptCommands(sessions)
  attachCommand(sessions)
  lifecycleCommands(sessions)
  sessions
    .command('suggest-name')
    .description('suggest a readable name no session uses')
    .action(async (_options, command: Command) => {
      const suggestion = await callDaemon(resolvePaths(), 'SuggestSessionName')
      reply(command, suggestion, suggestion.name)
    })
}
