import { appendFile, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanup, runCli, tempDir, type TestDaemon } from '@svc/test-kit'
import * as kit from '@svc/test-kit'

// A daemon whose state holds secrets a user would not post: its token, a session's title
// and prompt, a task's prompt, a URL with credentials in the log, and paths in the home.
let dir: string
let repo: string
let daemon: TestDaemon
const TITLE = 'secret-title-q7'
const PROMPT = 'the launch codes are 0000'
const TASK_PROMPT = 'rotate the staging keys'
const CREDENTIAL = 'hunter2pass'

beforeAll(async () => {
  dir = await tempDir()
  repo = await kit.makeRepo(dir)
  daemon = await kit.startSessionDaemon({ home: join(dir, 'svc') })
  await daemon.client.call('CreateSession', { repo_path: repo, title: TITLE, prompt: PROMPT })
  // A task aimed at the session: its target is the session's title.
  await daemon.client.call('AddTask', { task: { id: 'nightly', cron_expr: '0 3 * * *', prompt: TASK_PROMPT, project_path: repo, target_session: TITLE } })
  const token = (await readFile(daemon.paths.token, 'utf8')).trim()
  await appendFile(
    daemon.paths.log,
    [
      JSON.stringify({ level: 40, time: Date.now(), msg: 'push failed', origin: `https://me:${CREDENTIAL}@git.example.com/r.git` }),
      `a line that is not JSON: Authorization: Bearer ${token}, https://me:${CREDENTIAL}@example.com/?token=${token}, session ${TITLE}`,
      '',
    ].join('\n'),
  )
})

afterAll(async () => {
  await daemon.stop()
  await cleanup(dir)
})

describe('svc bug-report', () => {
  it('writes one 0600 file with versions, doctor, the log, config and records, and no secret in it', async () => {
    const file = join(dir, 'report.md')
    // The temporary directory stands for the user's home: every path in the state is under it.
    const result = await runCli(['bug-report', '-o', file], { SERVICE_HOME: daemon.home, HOME: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe(`wrote ${file}\nRead it before you share it: secrets are redacted as [redacted], but check nothing private is left.\n`)
    expect((await stat(file)).mode & 0o777).toBe(0o600)

    const text = await readFile(file, 'utf8')
    const token = (await readFile(daemon.paths.token, 'utf8')).trim()
    for (const secret of [token, TITLE, PROMPT, TASK_PROMPT, CREDENTIAL, dir]) expect(text, secret).not.toContain(secret)
    for (const heading of ['## Versions', '## svc doctor --json', '## daemon.log', '## config.json', '## Sessions (1)', '## Tasks (1)']) {
      expect(text).toContain(heading)
    }
    expect(text).toMatch(/"tmux": "\d+\.\d+/)
    // What is left is still useful: the paths under the home, the program, the states.
    expect(text).toContain('"repo_path": "~/repo"')
    expect(text).toContain('"program": "claude"')
    expect(text).toContain('"program_overrides": "[redacted]"') // commands
    expect(text).toContain('"msg":"push failed","origin":"[redacted]"')
    expect(text).toContain('Authorization: Bearer [redacted]')
  })
})
