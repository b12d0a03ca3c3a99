import type { Command } from 'commander'
import type { RequestOf, ResponseOf } from '@svc/protocol'
import { hostPath, integer, oneOf } from '../args.js'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { printTable } from '../output.js'
import { reply } from '../reply.js'

type Edits = NonNullable<RequestOf<'UpdateTask'>['update']>

interface EditOptions {
  name?: string
  prompt?: string
  cron?: string
  watch?: string
  target?: string
  maxConcurrent?: number
  onComplete?: string
  project?: string
  program?: string
}

/** The options add and update share: one per editable task field. */
function editOptions(command: Command): Command {
  return command
    .option('--name <name>', 'a name; spawned sessions are titled from it')
    .option('--prompt <text>', 'the prompt each run delivers; in a watch task {{line}} is the output line')
    .option('--cron <expr>', 'five-field cron schedule in the daemon\'s local time zone, e.g. "0 9 * * 1-5"')
    .option('--watch <command>', 'a command whose every output line fires a run ($SHELL -c, in the project directory)')
    .option('--target <session>', 'deliver into this session (created when missing) instead of spawning one per run')
    .option('--max-concurrent <n>', 'watch tasks without a target: spawned sessions running at once (default 1)', integer)
    .option('--on-complete <policy>', 'what happens to a spawned session once it settles ("", archive, kill; see on-complete)')
    .option('--program <program>', 'agent for the runs (default: the daemon\'s default_program)')
}

function editsFrom(options: EditOptions): Edits {
  const fields: Edits = {
    name: options.name,
    prompt: options.prompt,
    cron_expr: options.cron,
    watch_cmd: options.watch,
    target_session: options.target,
    max_concurrent_runs: options.maxConcurrent,
    on_complete: options.onComplete,
    project_path: options.project === undefined ? undefined : hostPath(options.project),
    program: options.program,
  }
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
}

/** `--expect-project`: refuse the change if the task was re-bound to another project meanwhile. */
function byId(id: string, options: { expectProject?: string }): RequestOf<'RemoveTask'> {
  return options.expectProject === undefined ? { id } : { id, expect: { enforce: true, project_path: hostPath(options.expectProject) } }
}

function trigger(task: ResponseOf<'ListTasks'>['tasks'][number]): string {
  return task.cron_expr !== '' ? `cron ${task.cron_expr}` : task.watch_cmd !== '' ? `watch ${task.watch_cmd}` : ''
}

const EXPECT = ['--expect-project <path>', 'refuse if the task is no longer bound to this project'] as const

export function tasksCommand(program: Command): void {
  const tasks = program.command('tasks').description('cron and watch automation: tasks that send prompts to sessions')

  tasks
    .command('list')
    .description('every task with its schedule health')
    .action(async (_options, command: Command) => {
      const response = await callDaemon(resolvePaths(), 'ListTasks')
      reply(command, response, () =>
        response.tasks.length === 0
          ? void process.stdout.write('no tasks\n')
          : printTable(
              ['ID', 'NAME', 'STATE', 'NEXT RUN', 'MISSED', 'LAST RUN', 'TRIGGER'],
              response.tasks.map((task) => [
                task.id,
                task.name,
                task.unschedulable_reason ? `${task.arming}: ${task.unschedulable_reason}` : task.arming,
                task.next_run_at ?? '',
                task.unassessable ? '?' : `${task.missed_occurrences}${task.missed_occurrences_capped ? '+' : ''}`,
                task.last_run_at ? `${task.last_run_at} ${task.last_run_status ?? ''}` : '',
                trigger(task),
              ]),
            ),
      )
    })

  editOptions(tasks.command('add'))
    .description('add a task (validated by the daemon); runs in the current directory\'s repository unless --project says otherwise')
    .option('--id <id>', 'the task id (letters, digits, _ and -); minted when omitted')
    .option('--project <path>', 'the repository the task runs in (default: the current directory)')
    .option('--disabled', 'add it switched off')
    .action(async (options: EditOptions & { id?: string; disabled?: boolean }, command: Command) => {
      oneOf({ '--cron': options.cron, '--watch': options.watch }, false)
      const task = {
        ...editsFrom({ ...options, project: options.project ?? '.' }),
        ...(options.id === undefined ? {} : { id: options.id }),
        enabled: options.disabled !== true,
      }
      const response = await callDaemon(resolvePaths(), 'AddTask', { task, actor: 'cli' })
      reply(command, response, `added task ${response.task.id} (${response.task.arming})`)
    })

  editOptions(tasks.command('update <id>'))
    .description('change only the given fields of a task ("" clears a text field)')
    .option('--project <path>', 'move the task to another repository')
    .option('--enable', 'switch it on')
    .option('--disable', 'switch it off (a watch command is stopped before this returns)')
    .option(...EXPECT)
    .action(async (id: string, options: EditOptions & { enable?: boolean; disable?: boolean; expectProject?: string }, command: Command) => {
      const toggle = oneOf({ '--enable': options.enable, '--disable': options.disable }, false)
      const update = { ...editsFrom(options), ...(toggle === undefined ? {} : { enabled: toggle === '--enable' }) }
      const response = await callDaemon(resolvePaths(), 'UpdateTask', { ...byId(id, options), update, actor: 'cli' })
      reply(command, response, `updated task ${id} (${response.task.arming})`)
    })

  const byIdCommands = [
    ['remove', 'RemoveTask', 'remove a task (its watch command is stopped first)', 'removed'],
    ['trigger', 'TriggerTask', 'run an enabled cron task now, as its schedule would', 'triggered'],
    ['restart', 'RestartTask', "restart an enabled watch task's command (the old one is gone before the new one starts)", 'restarted'],
  ] as const
  for (const [name, route, description, done] of byIdCommands) {
    tasks
      .command(`${name} <id>`)
      .description(description)
      .option(...EXPECT)
      .action(async (id: string, options: { expectProject?: string }, command: Command) => {
        reply(command, await callDaemon(resolvePaths(), route, byId(id, options)), `${done} task ${id}`)
      })
  }

  tasks
    .command('on-complete')
    .description('the completion policies for sessions a task spawns (--on-complete values)')
    .action(async (_options, command: Command) => {
      const response = await callDaemon(resolvePaths(), 'ListOnComplete')
      reply(command, response, () =>
        printTable(
          ['VALUE', 'MEANING'],
          response.values.map((option) => [option.value === '' ? '""' : option.value, option.hint]),
        ),
      )
    })
}
