import { existsSync } from 'node:fs'
import { chmod, mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { servicePaths } from '@svc/protocol'
import { startDaemon, tempHomes, waitFor } from '@svc/test-kit'
import { git, logShowing, makeRepo, startSessionDaemon, tmux, tmuxSessions, worktrees } from '@svc/test-kit'

const homes = tempHomes()
afterEach(homes.release)

function branches(repo: string): string[] {
  return git(repo, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean).sort()
}

/** A post-checkout hook that holds `git worktree add` for a while, with the worktree and branch made. */
async function slowCheckout(repo: string, marks: string): Promise<void> {
  const hook = join(repo, '.git', 'hooks', 'post-checkout')
  await writeFile(hook, `#!/bin/sh\ntouch ${marks}.started\nsleep 1\ntouch ${marks}.done\n`)
  await chmod(hook, 0o755)
}

describe('a CreateSession the daemon died in', () => {
  it('is undone at the next start, so the same CreateSession succeeds', async () => {
    const dir = await homes.make()
    const repo = await makeRepo(dir)
    const home = join(dir, 'svc')
    const marks = join(dir, 'checkout')
    await slowCheckout(repo, marks)
    const first = await startSessionDaemon({ home })
    const request = { repo_path: repo, title: 'halfway' }
    const attempt = first.client.call('CreateSession', request).catch((error: Error) => error)
    await waitFor(() => existsSync(`${marks}.started`))
    await first.stop('SIGKILL')
    await attempt
    // git outlives the daemon: once it is done, the worktree and the branch exist without a record.
    await waitFor(() => existsSync(`${marks}.done`))
    const path = join(dir, 'repo-halfway')
    expect(worktrees(repo)).toContain(path)
    expect(branches(repo)).toContain('agent/halfway')

    await rm(join(repo, '.git', 'hooks', 'post-checkout'))
    const second = await startSessionDaemon({ home })
    expect(worktrees(repo)).not.toContain(path)
    expect(existsSync(path)).toBe(false)
    expect(branches(repo)).toEqual(['main'])
    expect(await readdir(join(home, 'creating'))).toEqual([])
    await logShowing(second, 'removed what an interrupted CreateSession left behind')

    const created = await second.client.call('CreateSession', request)
    expect(created.instance).toMatchObject({ title: 'halfway', path, branch: 'agent/halfway' })
  })

  it('kills a tmux session an intent names, and keeps a session whose record was committed', async () => {
    const dir = await homes.make()
    const repo = await makeRepo(dir)
    const home = join(dir, 'svc')
    const first = await startSessionDaemon({ home })
    const kept = (await first.client.call('CreateSession', { repo_path: repo, title: 'kept' })).instance
    const [keptTmux] = tmuxSessions(home)
    await first.stop()
    const creating = join(home, 'creating')
    await mkdir(creating, { recursive: true })
    // The daemon died after starting an agent, before the record: only the intent knows it.
    const orphan = { id: 'feedfacefeedface', title: 'orphan', repo_path: repo, tmux_name: 'svc_orphan' }
    tmux(home, 'new-session', '-d', '-s', orphan.tmux_name, 'sleep 600')
    await writeFile(join(creating, `${orphan.id}.json`), JSON.stringify(orphan))
    // The daemon died after committing the record, before dropping the intent.
    const committed = { id: kept.id, title: 'kept', repo_path: repo, tmux_name: keptTmux }
    await writeFile(join(creating, `${kept.id}.json`), JSON.stringify(committed))

    const second = await startSessionDaemon({ home })
    expect(tmuxSessions(home)).toEqual([keptTmux])
    expect(await readdir(creating)).toEqual([])
    const { instances } = await second.client.call('Snapshot', {})
    expect(instances.map((session) => session.title)).toEqual(['kept'])
    expect(worktrees(repo)).toContain(kept.path)
  })
})

it('rolls a CreateSession back when its record cannot be written, and the retry succeeds', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const daemon = await startSessionDaemon({ home: join(dir, 'svc') })
  const sessions = join(daemon.home, 'sessions')
  // A file where the records directory should be: the agent starts, then the save fails.
  await rm(sessions, { recursive: true })
  await writeFile(sessions, '')
  const request = { repo_path: repo, title: 'unsaved' }
  const failed = await daemon.post('/v1/CreateSession', request)
  expect(failed.status).toBe(500)
  expect(failed.json.error).toMatchObject({ daemon_rejected: true })
  expect(worktrees(repo)).toEqual([repo])
  expect(branches(repo)).toEqual(['main'])
  expect(tmuxSessions(daemon.home)).toEqual([])

  await rm(sessions)
  await mkdir(sessions)
  expect((await daemon.client.call('CreateSession', request)).instance.title).toBe('unsaved')
})

/** Where each durable writer would leave the temp file of a write a kill interrupted, as `.<file>.<pid>.<hex>.tmp` beside it. */
function writersTemps(home: string): string[] {
  const paths = servicePaths(home)
  const beside = (file: string, pid: number) => join(dirname(file), `.${basename(file)}.${pid}.0badf00d.tmp`)
  return [
    beside(paths.tasks, 4242),
    beside(join(home, 'tasks.journal'), 4243),
    beside(paths.config, 4244),
    beside(paths.projects, 4245),
    beside(paths.token, 4246),
    beside(join(home, 'watchers.json'), 4247),
    beside(join(paths.sessionRecords, 'abc.json'), 4248),
    beside(join(paths.creating, 'abc.json'), 4249),
    beside(join(paths.handoffs, 'abc.json'), 4250),
  ]
}

describe('what a killed daemon leaves in SERVICE_HOME', () => {
  it('clears stale locks and every writer\'s temp files at start, before the first write, and the state loads', async () => {
    const home = await homes.make()
    const paths = servicePaths(home)
    const project = await homes.make()
    await makeRepo(project)
    const first = await startDaemon({ home })
    await first.client.call('AddTask', { task: { name: 'kept', prompt: 'p', cron_expr: '0 0 1 1 *', project_path: join(project, 'repo') } })
    await first.client.call('RegisterProject', { path: join(project, 'repo') })
    await first.client.call('SetConfigValue', { key: 'log_max_backups', value: '4' })
    await first.stop('SIGKILL')

    for (const dir of [paths.sessionRecords, paths.creating, paths.handoffs]) await mkdir(dir, { recursive: true })
    const locks = [`${paths.tasks}.lock`, `${paths.config}.lock`]
    // Fresh, as a daemon killed a moment ago leaves them: lockfile would wait until they are 10 s old.
    for (const lock of locks) await writeFile(lock, '')
    const temps = writersTemps(home)
    for (const temp of temps) await writeFile(temp, 'half')
    const unrelated = join(home, '.notes.tmp')
    await writeFile(unrelated, 'mine')

    const daemon = await startDaemon({ home })
    for (const path of [...locks, ...temps]) expect(existsSync(path), path).toBe(false)
    expect(existsSync(unrelated)).toBe(true)
    await logShowing(daemon, 'removed locks and temp files a previous daemon left')

    expect((await daemon.client.call('ListTasks')).tasks.map((task) => task.name)).toEqual(['kept'])
    expect((await daemon.client.call('ListProjects')).projects.map((each) => each.root)).toEqual([join(project, 'repo')])
    expect((await daemon.client.call('GetConfig')).entries.find((entry) => entry.key === 'log_max_backups')?.value).toBe('4')
    const added = await daemon.client.call('AddTask', {
      task: { name: 'n', prompt: 'p', cron_expr: '0 0 1 1 *', project_path: join(project, 'repo') },
    })
    expect(added.ok).toBe(true)
    expect(await daemon.client.call('SetConfigValue', { key: 'log_max_backups', value: '5' })).toMatchObject({ ok: true })
  })
})
