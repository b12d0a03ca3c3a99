import type { Command } from 'commander'
import { hostPath } from '../args.js'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { deliveryNote } from '../delivery.js'
import { reply } from '../reply.js'
import { sessionCall } from '../session-ref.js'

const PROMPT_HELP = `
The prompt is the rest of the command line, joined with spaces; put it after -- when it
starts with a dash.`

/** `svc sessions send|deliver`: prompts into sessions. */
export function promptCommands(sessions: Command): void {
  sessionCall(
    sessions.command('send <title> <prompt...>').description('paste a prompt into the agent and report whether it arrived (SendPrompt)'),
    'SendPrompt',
    (ref, [words]) => ({ ...ref, prompt: (words as string[]).join(' ') }),
    (response, title) => `${title}: ${deliveryNote(title, response.status, response.reason)}`,
  ).addHelpText(
    'after',
    `${PROMPT_HELP}
Exit 0 unless the prompt was not delivered (exit 1). "sent but unverified" and "not
confirmed" exit 0 but do not claim delivery: look at the pane with svc sessions attach.

Example:
  svc sessions send fix-parser "also cover the empty-input case"`,
  )

  sessions
    .command('deliver <title> <prompt...>')
    .description('deliver a prompt to the titled session, creating the session when the repository has none (DeliverPrompt)')
    .option('--repo <path>', 'the repository (default: the current directory)')
    .option('--program <program>', 'the agent, when the session is created')
    .option('--defer-while-attached', 'hold the prompt while a terminal is attached; it is pasted once the terminal detaches')
    .addHelpText('after', `${PROMPT_HELP}\n\nExample:\n  svc sessions deliver nightly-lint --repo ~/src/app "run the linter and fix what it finds"`)
    .action(
      async (title: string, words: string[], options: { repo?: string; program?: string; deferWhileAttached?: boolean }, command: Command) => {
        const response = await callDaemon(resolvePaths(), 'DeliverPrompt', {
          title,
          prompt: words.join(' '),
          repo_path: hostPath(options.repo ?? '.'),
          ...(options.program ? { program: options.program } : {}),
          ...(options.deferWhileAttached ? { defer_while_attached: true } : {}),
        })
        const what = response.status === 'started' ? `started ${title}` : `sent to ${title}`
        const line = response.deferred
          ? `${title}: a terminal is attached; the prompt waits until it detaches`
          : `${what}: ${response.delivery ? deliveryNote(title, response.delivery) : 'no delivery status'}`
        reply(command, response, line)
      },
    )
}
