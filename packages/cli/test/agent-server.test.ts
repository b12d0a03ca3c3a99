import { spawn, type ChildProcess } from 'node:child_process'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createClient } from '@svc/protocol'
import { AGENT, checkedClient, CLI_MAIN, makeRepo, paneText, send, tempHomes, waitFor } from '@svc/test-kit'

const homes = tempHomes()
afterEach(() => homes.release())

interface Run {
  child: ChildProcess
  /** The SERVICE_HOME of its environment, which it must leave alone. */
  userHome: string
  stdout: () => string
  stderr: () => string
  exited: Promise<number | null>
}

/** `svc agent-server` as a launcher runs it; SERVICE_HOME names another home it must not use. */
async function agentServer(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const userHome = await homes.make()
  const child = spawn(process.execPath, [CLI_MAIN, 'agent-server', ...args], {
    cwd,
    env: { ...process.env, SERVICE_HOME: userHome, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, userHome, stdout: () => stdout, stderr: () => stderr, exited }
}

/** The one line it prints once ready. */
async function endpointOf(run: Run): Promise<{ url: string; token: string }> {
  const line = await waitFor(() => {
    if (run.child.exitCode !== null) throw new Error(`agent-server exited with ${run.child.exitCode}: ${run.stderr()}`)
    return run.stdout().includes('\n') ? run.stdout() : undefined
  }, 30_000)
  return JSON.parse(line) as { url: string; token: string }
}

async function stop(run: Run): Promise<number | null> {
  run.child.kill('SIGTERM')
  return run.exited
}

describe('svc agent-server', () => {
  it('serves its workspace on a token-guarded listener, creates in-place sessions there and stops on SIGTERM', async () => {
    const home = await homes.make()
    const workspace = await makeRepo(await homes.make())
    // Its own config maps program names; the listener and token settings there do not move it.
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({
        network: { listen_addr: '127.0.0.1:1', require_token: false, require_loopback_token: false },
        program_overrides: { claude: AGENT },
        daemon_poll_interval: '200ms',
      }),
    )
    const run = await agentServer(['--home', home], workspace)
    const { url, token } = await endpointOf(run)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(url).not.toBe('http://127.0.0.1:1')
    const port = Number(new URL(url).port)

    const client = checkedClient(createClient({ url, token }))
    const health = await client.call('Health')
    expect(health.phase).toBe('ready')
    expect(health.agent_server).toEqual({ workspace })
    expect(health.listeners.tcp_bound_addr).toBe(`127.0.0.1:${port}`)
    const anonymous = await send({ host: '127.0.0.1', port }, 'POST', '/v1/ListProjects', { body: '{}' })
    expect(anonymous.status).toBe(401)
    expect(anonymous.json.error.message).toContain('requires the token')
    expect((await client.call('ListProjects', {})).projects.map((project) => project.root)).toEqual([workspace])

    // As the home daemon will: in place, with its title, program and prompt.
    const { instance: created } = await client.call('CreateSession', {
      repo_path: workspace,
      title: 'remote-work',
      program: 'claude',
      prompt: 'hello remote',
      in_place: true,
    })
    expect([created.in_place, created.path]).toEqual([true, workspace])
    const listed = await client.call('Snapshot', {})
    expect(listed.instances.map((instance) => [instance.title, instance.path])).toEqual([['remote-work', workspace]])
    // Its config's program_overrides ran the fake agent, which got the prompt.
    await waitFor(() => paneText(home, created.tabs[0]?.tmux_name as string).includes('received: hello remote'))

    expect(await stop(run)).toBe(0)
    expect(run.stdout().split('\n')).toEqual([JSON.stringify({ url, token }), ''])
    expect(await readdir(run.userHome)).toEqual([])
  }, 60_000)

  it('keeps its home in ~/.svc-agent unless told, and honours --listen', async () => {
    const workspace = await makeRepo(await homes.make())
    const userDir = await homes.make()
    homes.keep(join(userDir, '.svc-agent'))
    const probe = await agentServer(['--workspace', workspace], '/', { HOME: userDir })
    const first = await endpointOf(probe)
    expect((await readFile(join(userDir, '.svc-agent', 'daemon-token'), 'utf8')).trim()).toBe(first.token)
    const free = Number(new URL(first.url).port)
    expect(await stop(probe)).toBe(0)

    const run = await agentServer(['--home', await homes.make(), '--workspace', workspace, '--listen', `127.0.0.1:${free}`], '/')
    const { url, token } = await endpointOf(run)
    expect(url).toBe(`http://127.0.0.1:${free}`)
    expect((await createClient({ url, token }).call('Health')).agent_server).toEqual({ workspace })
    expect(await stop(run)).toBe(0)
  }, 60_000)

  it('refuses a workspace that is not a git checkout, printing nothing on stdout', async () => {
    const home = await homes.make()
    const plain = await homes.make()
    const run = await agentServer(['--home', home, '--workspace', plain], '/')
    expect(await run.exited).toBe(2)
    expect(run.stdout()).toBe('')
    expect(run.stderr()).toContain(`--workspace: ${plain} is not inside a git checkout`)
    expect(await readdir(home)).toEqual([])
  })

  it('fails when its listen address is taken', async () => {
    const workspace = await makeRepo(await homes.make())
    const first = await agentServer(['--home', await homes.make(), '--workspace', workspace], '/')
    const taken = new URL((await endpointOf(first)).url).host
    const second = await agentServer(['--home', await homes.make(), '--workspace', workspace, '--listen', taken], '/')
    expect(await second.exited).toBe(1)
    expect(second.stdout()).toBe('')
    expect(second.stderr()).toContain(`cannot listen on ${taken}`)
    expect(await stop(first)).toBe(0)
  }, 60_000)

  it('refuses a listen address it cannot parse', async () => {
    const workspace = await makeRepo(await homes.make())
    const run = await agentServer(['--home', await homes.make(), '--workspace', workspace, '--listen', 'nowhere'], '/')
    expect(await run.exited).toBe(2)
    expect(run.stdout()).toBe('')
    expect(run.stderr()).toContain('--listen: "nowhere" is not an address')
  })
})
