import { readdir } from 'node:fs/promises'
import { arch, homedir, release, type as osType } from 'node:os'
import { join } from 'node:path'
import { readIfExists, readSessionRecords, TaskStore, writeFileDurable, type SessionRecord } from '@svc/core'
import { SVC_VERSION, type ServicePaths } from '@svc/protocol'
import { logEntry, logTail } from '../log-tail.js'
import { runDoctor } from '../doctor/doctor.js'
import { gitIdentity, versions } from '../doctor/prerequisites.js'
import { redactFields, redactText, type Secrets } from './redaction.js'

/** How much of daemon.log a report carries. */
const LOG_LINES = 200
const LOG_BYTES = 64 * 1024

/** What a user typed or a daemon minted, and who they are, that the report must not carry wherever it shows up. */
async function secretsOf(paths: ServicePaths, sessions: SessionRecord[], tasks: Array<{ name: string; prompt: string; watch_cmd: string }>): Promise<Secrets> {
  const tokenFiles = await readdir(paths.remoteTokens).catch(() => [])
  const tokens = await Promise.all([paths.token, ...tokenFiles.map((id) => join(paths.remoteTokens, id))].map(readIfExists))
  const typed = sessions.flatMap((record) => [record.title, record.first_prompt, record.mission?.text, ...(record.pending_prompts ?? [])])
  const scheduled = tasks.flatMap((task) => [task.name, task.prompt, task.watch_cmd])
  const { name, email } = await gitIdentity()
  const literals = [...tokens.map((token) => token?.trim()), ...typed, ...scheduled, name, email].filter((text): text is string => Boolean(text))
  return { literals, home: homedir() }
}

const json = (value: unknown) => JSON.stringify(value, null, 2)

function section(title: string, body: string, fenced = 'json'): string {
  return `## ${title}\n\n\`\`\`${fenced}\n${body.trimEnd()}\n\`\`\`\n`
}

/** A log line with its secret fields blanked; a line that is not JSON goes through the text redaction alone. */
function logLine(line: string): string {
  const entry = logEntry(line)
  return entry ? JSON.stringify(redactFields(entry)) : line
}

/**
 * The whole report, redacted: versions, what doctor finds, the end of daemon.log, the
 * config and the session and task records. Read-only, like doctor.
 */
export async function bugReport(paths: ServicePaths): Promise<string> {
  const [found, doctor, sessions, tasks, config, log] = await Promise.all([
    versions(),
    runDoctor(paths, false),
    readSessionRecords(paths.sessionRecords),
    new TaskStore(paths.tasks).load().then(
      (loaded) => loaded.doc.tasks,
      (error: Error) => error,
    ),
    readIfExists(paths.config),
    logTail(paths.log, LOG_LINES, LOG_BYTES),
  ])
  const taskList = tasks instanceof Error ? [] : tasks
  const secrets = await secretsOf(paths, sessions.values, taskList)
  const configText = config === undefined ? '(none: the defaults apply)' : (() => {
    try {
      return json(redactFields(JSON.parse(config)))
    } catch {
      return '(does not parse; doctor says why)'
    }
  })()
  const parts = [
    '# svc bug report\n',
    'Secrets are blanked as [redacted] (titles, prompts, commands, URLs, tokens) and your home directory is shown as ~. Read it all before you share it.\n',
    section('Versions', json({ svc: SVC_VERSION, node: found.node, git: found.git ?? 'not found', tmux: found.tmux ?? 'not found', os: `${osType()} ${release()} ${arch()}` })),
    section('svc doctor --json', json(doctor)),
    section(`daemon.log (last ${LOG_LINES} lines, at most ${LOG_BYTES / 1024} KiB)`, log.map(logLine).join('\n') || '(empty)'),
    section('config.json', configText),
    section(`Sessions (${sessions.values.length})`, json(redactFields(sessions.values))),
    section(`Tasks (${taskList.length})`, tasks instanceof Error ? `(tasks.json cannot be read: ${tasks.message})` : json(redactFields(taskList))),
  ]
  return redactText(parts.join('\n'), secrets)
}

/** Writes the report to `file`, readable by its owner alone (0600), replacing what was there. */
export async function writeBugReport(paths: ServicePaths, file: string): Promise<void> {
  await writeFileDurable(file, await bugReport(paths), 0o600)
}
