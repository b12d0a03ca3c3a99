import type { ChildProcess } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createClient, type Client, type Session } from '@svc/protocol'
import type { Static } from 'typebox'
import { checkedClient, CLI_MAIN } from './harness.js'
import type { Place } from './netns.js'
import { AGENT, paneText } from './sessions-kit.js'
import { waitFor } from './wait.js'

export interface AgentServerOptions {
  /** Where it runs (`makePlace()`): it listens on the place's address. */
  place: Place
  /** Its SERVICE_HOME; a `tempHomes()` dir, so the test's release stops its tmux server. */
  home: string
  /** A git checkout it serves. */
  workspace: string
  /** 0 (default) picks a free one; a restart passes the port it had. */
  port?: number
  /** Merged into its config.json: `claude` is the fake agent and it polls fast unless this says otherwise. */
  config?: Record<string, unknown>
}

/** A running `svc agent-server`, as a launch script would start one. */
export interface AgentServer {
  url: string
  token: string
  port: number
  options: AgentServerOptions
  /** The typed client over HTTP with the token, every answer checked. */
  client: Client
  process: ChildProcess
  stderr(): string
  /** Stops it: SIGTERM (a clean stop) or SIGKILL (a crash); resolves once it exited. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

/** Starts `svc agent-server` in the place and waits for its `{url, token}` line. */
export async function startAgentServer(options: AgentServerOptions): Promise<AgentServer> {
  const { place, home, workspace, port = 0 } = options
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({ program_overrides: { claude: AGENT }, daemon_poll_interval: '200ms', ...options.config }),
  )
  const child = place.spawn(process.execPath, [CLI_MAIN, 'agent-server', '--home', home, '--workspace', workspace, '--listen', `${place.address}:${port}`], {
    env: { ...process.env, SERVICE_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const line = await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`agent-server exited with ${child.exitCode}: ${stderr}`)
    return stdout.includes('\n') ? stdout : undefined
  }, 30_000)
  const { url, token } = JSON.parse(line) as { url: string; token: string }
  return {
    url,
    token,
    port: Number(new URL(url).port),
    options,
    client: checkedClient(createClient({ url, token })),
    process: child,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
  }
}

/** Starts it again on its home and port, as after a crash. */
export function restartAgentServer(server: AgentServer): Promise<AgentServer> {
  return startAgentServer({ ...server.options, port: server.port })
}

export type RemoteSession = Static<typeof Session>

/** An in-place session on the agent server, as the home daemon creates one, once its fake agent is ready. */
export async function remoteSession(server: AgentServer, title: string): Promise<RemoteSession> {
  const { instance } = await server.client.call('CreateSession', {
    repo_path: server.options.workspace,
    title,
    program: 'claude',
    in_place: true,
  })
  await waitFor(() => paneText(server.options.home, instance.tabs[0]?.tmux_name as string).includes('fake-agent ready') || undefined, 20_000)
  return instance
}
