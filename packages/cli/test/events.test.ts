import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { afterEach, expect, it } from 'vitest'
import type { FeedFrame } from '@svc/protocol'
import { CLI_MAIN, makeRepo, runCli, startDaemon, tempHomes, waitFor, type TestDaemon } from '@svc/test-kit'

const homes = tempHomes()
afterEach(homes.release)

/** `svc events …` running in the background, its stdout read as NDJSON frames. */
function follow(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI_MAIN, 'events', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  const frames = () => out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as FeedFrame)
  return { child, exited, frames, stderr: () => err }
}

async function daemonHome(): Promise<{ daemon: TestDaemon; env: Record<string, string> }> {
  const daemon = await startDaemon()
  homes.keep(daemon.home)
  return { daemon, env: { SERVICE_HOME: daemon.home } }
}

it('without --follow, waits for the next matching event, prints it as one JSON line and exits', async () => {
  const { daemon, env } = await daemonHome()
  const once = follow(['--kind', 'config.changed'], env)
  // It prints nothing before it is subscribed: keep changing until it has seen one.
  let exited = false
  void once.exited.then(() => (exited = true))
  await waitFor(async () => exited || (await daemon.client.call('SetConfigValue', { key: 'limit_auto_resume', value: 'true' }), undefined), 20_000)
  expect(await once.exited).toBe(0)
  expect(once.frames()).toEqual([{ type: 'config.changed', seq: expect.any(Number), data: { key: 'limit_auto_resume' } }])
}, 60_000)

it('with --follow, prints the hello and every matching event until interrupted, filtered by kind and session', async () => {
  const { daemon, env } = await daemonHome()
  const repo = await makeRepo(await homes.make())
  const all = follow(['--follow', '--kind', 'projects.changed,config.'], env)
  const none = follow(['--follow', '--session', 'nobody'], env)
  await waitFor(() => all.frames().length > 0 && none.frames().length > 0, 20_000)
  await daemon.client.call('RegisterProject', { path: repo })
  await daemon.client.call('AddTask', { task: { cron_expr: '*/5 * * * *', prompt: 'p', project_path: repo } })
  await daemon.client.call('SetConfigValue', { key: 'limit_auto_resume', value: 'true' })
  await waitFor(() => all.frames().some((frame) => frame.type === 'config.changed'))
  all.child.kill('SIGINT')
  none.child.kill('SIGINT')
  expect(await all.exited).toBe(0)
  expect(await none.exited).toBe(0)
  expect(all.frames().map((frame) => frame.type)).toEqual(['hello', 'projects.changed', 'config.changed'])
  expect(all.frames()[0]).toEqual({ type: 'hello', data: { boot_id: (await daemon.client.call('Health')).boot_id, seq: expect.any(Number) } })
  expect(none.frames().map((frame) => frame.type)).toEqual(['hello'])
}, 60_000)

it('reads a daemon on another machine through its TCP listener with SVC_URL and SVC_TOKEN', async () => {
  const daemon = await startDaemon({ config: { network: { listen_addr: '127.0.0.1:0' } } })
  homes.keep(daemon.home)
  const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
  const token = (await readFile(daemon.paths.token, 'utf8')).trim()
  // An empty home: nothing local is started or read.
  const env = { SERVICE_HOME: await homes.make(), SVC_URL: `http://${addr}` }
  const refused = await runCli(['events'], env)
  expect(refused.code).toBe(1)
  expect(refused.stderr).toMatch(/^svc: .*token/m)
  const remote = follow(['--follow'], { ...env, SVC_TOKEN: token })
  await waitFor(() => remote.frames().length > 0, 20_000)
  await daemon.client.call('SetConfigValue', { key: 'limit_auto_resume', value: 'true' })
  await waitFor(() => remote.frames().some((frame) => frame.type === 'config.changed'))
  remote.child.kill('SIGTERM')
  expect(await remote.exited).toBe(0)
}, 60_000)

it('refuses an unknown kind as a usage error', async () => {
  const result = await runCli(['events', '--kind', 'sessions.created'], { SERVICE_HOME: await homes.make() })
  expect(result.code).toBe(2)
  expect(result.stderr).toMatch(/unknown event kind "sessions\.created"/)
})
