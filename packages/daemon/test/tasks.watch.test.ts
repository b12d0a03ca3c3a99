import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { dumpEnvCommand, envDump, startDaemon, tempHomes, waitFor, type TestDaemon, makeRepo } from '@svc/test-kit'

const homes = tempHomes()
let dir: string
let repo: string
let daemon: TestDaemon

beforeAll(async () => {
  dir = await homes.make()
  repo = await makeRepo(dir)
  daemon = await startDaemon({ home: join(dir, 'svc') })
})
afterEach(async () => {
  for (const task of (await daemon.client.call('ListTasks')).tasks) await daemon.client.call('RemoveTask', { id: task.id })
})
afterAll(homes.release)

interface Proc {
  pid: number
  pgid: number
  args: string
}

/** Running processes (zombies left out) whose command line carries `mark`. */
function marked(mark: string): Proc[] {
  return execFileSync('ps', ['-A', '-o', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null && !match[3]?.startsWith('Z') && match[4]?.includes(mark))
    .map((match) => ({ pid: Number(match?.[1]), pgid: Number(match?.[2]), args: match?.[4] as string }))
}

/** Process groups among `processes`: one per watcher tree alive. */
const groups = (processes: Proc[]) => [...new Set(processes.map((proc) => proc.pgid))]

/** A watch command that prints nothing: a shell loop and a background child, both carrying `mark`. */
const quiet = (mark: string, prefix = '') => `${prefix}sh -c "sleep 300; : ${mark}" & while :; do sleep 0.2; done # ${mark}`

/** Like `quiet`, but its shell takes half a second to die on SIGTERM, so a stop that is not awaited shows. */
const lingering = (mark: string) => quiet(mark, 'trap "sleep 0.5; exit 0" TERM; ')

async function addWatch(id: string, watch_cmd: string) {
  return daemon.client.call('AddTask', { task: { id, watch_cmd, project_path: repo } })
}

const task = async (id: string) => (await daemon.client.call('ListTasks')).tasks.find((candidate) => candidate.id === id)

it('runs $SHELL -c watch_cmd as the leader of its own process group, in project_path', async () => {
  const mark = randomBytes(6).toString('hex')
  // Written beside it, then renamed: the test never reads an empty file.
  const added = await addWatch('where', `pwd > watch-cwd.part && mv watch-cwd.part watch-cwd.txt; ${quiet(mark)}`)
  expect(added.task.arming).toBe('watching')
  const [leader] = await waitFor(() => {
    const found = marked(mark).filter((proc) => proc.args.includes('while :'))
    return found.length > 0 ? found : undefined
  })
  expect(leader?.pgid).toBe(leader?.pid)
  expect(leader?.args.startsWith(`${process.env.SHELL || '/bin/sh'} -c `)).toBe(true)
  expect(groups(marked(mark))).toEqual([leader?.pid])
  expect(await waitFor(() => readFile(join(repo, 'watch-cwd.txt'), 'utf8').catch(() => undefined))).toBe(`${repo}\n`)
})

it('RestartTask never leaves two watchers alive, and leaves exactly one new one', async () => {
  const mark = randomBytes(6).toString('hex')
  await addWatch('restarted', lingering(mark))
  const [first] = await waitFor(() => (groups(marked(mark)).length === 1 ? groups(marked(mark)) : undefined))
  let sampling = true
  let most = 0
  const sampler = (async () => {
    while (sampling) {
      most = Math.max(most, groups(marked(mark)).length)
      await sleep(10)
    }
  })()
  const replies = await Promise.all(Array.from({ length: 5 }, () => daemon.client.call('RestartTask', { id: 'restarted' })))
  await sleep(300)
  sampling = false
  await sampler
  expect(replies).toEqual(Array(5).fill({ ok: true }))
  expect(most).toBe(1)
  const after = groups(marked(mark))
  expect(after).toHaveLength(1)
  expect(after[0]).not.toBe(first)
})

it('returns from a disable only once the watcher is gone, even one that ignores SIGTERM', async () => {
  const mark = randomBytes(6).toString('hex')
  await addWatch('stubborn', quiet(mark, 'trap "" TERM; '))
  await waitFor(() => marked(mark).length >= 2)
  const started = Date.now()
  const reply = await daemon.client.call('UpdateTask', { id: 'stubborn', update: { enabled: false } })
  expect(marked(mark)).toEqual([])
  // SIGTERM was ignored, so the stop waited out its grace period and used SIGKILL.
  expect(Date.now() - started).toBeGreaterThanOrEqual(1900)
  expect(reply.task.arming).toBe('disabled')
})

it('restarts a failing watch command with growing backoff, then gives up with the reason', async () => {
  const starts = join(dir, 'starts.txt')
  await addWatch('crashing', `date +%s%3N >> ${starts}; echo "boom at start" >&2; exit 3`)
  const reason = 'watch command gave up after 4 failures in a row (last: exit code 3: boom at start); RestartTask starts it again'
  // The reason shows in arming at once and in last_run_status once it is written.
  const stopped = await waitFor(async () => {
    const current = await task('crashing')
    return current?.arming === 'unschedulable' && current.last_run_status ? current : undefined
  }, 15_000)
  expect(stopped).toMatchObject({ unschedulable: true, unschedulable_reason: reason, last_run_status: reason })
  const times = (await readFile(starts, 'utf8')).trim().split('\n').map(Number)
  expect(times).toHaveLength(4)
  const gaps = times.slice(1).map((time, i) => time - (times[i] as number))
  expect(gaps[0]).toBeGreaterThanOrEqual(450)
  expect(gaps[1]).toBeGreaterThanOrEqual(950)
  expect(gaps[2]).toBeGreaterThanOrEqual(1950)

  // RestartTask gives it a fresh start.
  await daemon.client.call('RestartTask', { id: 'crashing' })
  await waitFor(async () => (await readFile(starts, 'utf8')).trim().split('\n').length === 5)
})

it('reports a watch command that exited cleanly', async () => {
  await addWatch('finished', 'exit 0')
  const ended = await waitFor(async () => {
    const current = await task('finished')
    return current?.arming === 'unschedulable' ? current : undefined
  })
  expect(ended.unschedulable_reason).toBe('watch command exited (exit code 0); RestartTask starts it again')
})

it('leaves no process of a watch command behind when the daemon stops', async () => {
  const own = await startDaemon({ home: await homes.make() })
  const mark = randomBytes(6).toString('hex')
  await own.client.call('AddTask', { task: { id: 'orphan-check', watch_cmd: lingering(mark), project_path: repo } })
  const [group] = await waitFor(() => (marked(mark).length >= 2 ? groups(marked(mark)) : undefined))
  expect(await own.stop('SIGTERM')).toBe(0)
  expect(marked(mark)).toEqual([])
  const members = execFileSync('ps', ['-A', '-o', 'pgid=,stat='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => Number(line.trim().split(/\s+/)[0]) === group && !line.trim().split(/\s+/)[1]?.startsWith('Z'))
  expect(members).toEqual([])
})

it('reaps at the next start the watch commands of a daemon killed with SIGKILL', async () => {
  const home = await homes.make()
  const killed = await startDaemon({ home })
  const mark = randomBytes(6).toString('hex')
  await killed.client.call('AddTask', { task: { id: 'survivor', watch_cmd: quiet(mark), project_path: repo } })
  const [before] = await waitFor(() => (marked(mark).length >= 2 ? groups(marked(mark)) : undefined))
  await killed.stop('SIGKILL')
  expect(groups(marked(mark))).toEqual([before])

  // The next daemon stops the orphaned group before starting exactly one new watcher.
  const next = await startDaemon({ home })
  const after = await waitFor(() => {
    const now = groups(marked(mark))
    return now.length === 1 && now[0] !== before ? now : undefined
  })
  expect(after).toHaveLength(1)
  await next.stop()
  expect(marked(mark)).toEqual([])
})

it('gives watch commands the filtered environment, like panes', async () => {
  const own = await startDaemon({
    home: await homes.make(),
    env: { SVC_TEST_SECRET: 'hunter2', PASSED_NAME: 'passed-through' },
    config: { network: { listen_addr: '' }, session_env_passthrough: ['PASSED_NAME'] },
  })
  const dump = join(dir, `watch-env-${randomBytes(4).toString('hex')}.json`)
  await own.client.call('AddTask', {
    task: { id: 'env', watch_cmd: `${dumpEnvCommand(dump)}; sleep 300`, project_path: repo },
  })
  const env = await envDump(dump)
  expect(env.PASSED_NAME).toBe('passed-through')
  expect(env.PATH).toBe(process.env.PATH)
  expect(env).not.toHaveProperty('SVC_TEST_SECRET')
  await own.stop()
})
