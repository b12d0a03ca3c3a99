import { execFileSync } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { startDaemon, type TestDaemon, type tempHomes } from '../harness.js'
import { makeRepo, paneText, tmux } from '../sessions-kit.js'
import { alive, waitFor } from '../wait.js'
import { serveAnthropic } from '../stand-ins/anthropic.js'
import { serveGemini } from '../stand-ins/gemini.js'
import { serveOpenAIChat } from '../stand-ins/openai-chat.js'
import { serveOpenAIResponses } from '../stand-ins/openai-responses.js'
import type { ModelStandIn, StandInOptions } from '../stand-ins/stand-in.js'
import { setUpClaude } from './claude.js'
import { setUpCodex } from './codex.js'
import { setUpGemini } from './gemini.js'
import { setUpOpencode } from './opencode.js'
import type { RealAgent } from './real-agent.js'

/** The processes of a process group (a pane's: tmux makes its process a group leader). */
export function processGroup(pgid: number): number[] {
  try {
    return execFileSync('pgrep', ['-g', String(pgid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/**
 * Ends every pane's process group and waits for them to go: a real CLI still writing its
 * state on the way out would race the removal of its home.
 */
async function endAgents(home: string): Promise<void> {
  const pids = tmux(home, 'list-panes', '-a', '-F', '#{pane_pid}')
    .split('\n')
    .map(Number)
    .filter((pid) => pid > 1)
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGTERM')
    } catch {
      // Already gone.
    }
  }
  await waitFor(() => pids.every((pid) => !alive(pid)) || undefined, 10_000)
}

export type RealAgentName = 'claude' | 'codex' | 'gemini' | 'opencode'

interface Kit {
  serve: (options?: StandInOptions) => Promise<ModelStandIn>
  setUp: (dir: string, standIn: ModelStandIn) => Promise<RealAgent>
  /** It asks whether to trust each new repository before its composer shows. */
  asksTrust: boolean
}

/** Each real CLI's model API stand-in and its setup. */
const KITS: Record<RealAgentName, Kit> = {
  claude: { serve: serveAnthropic, setUp: setUpClaude, asksTrust: true },
  codex: { serve: serveOpenAIResponses, setUp: setUpCodex, asksTrust: true },
  gemini: { serve: serveGemini, setUp: setUpGemini, asksTrust: true },
  opencode: { serve: serveOpenAIChat, setUp: setUpOpencode, asksTrust: false },
}

/** Whether the real CLI raises a folder-trust question in a new repository (opencode asks nothing). */
export function asksFolderTrust(name: RealAgentName): boolean {
  return KITS[name].asksTrust
}

export interface RealAgentDaemon {
  dir: string
  daemon: TestDaemon
  /** Per CLI: its stand-in (what its model received) and how it was set up. */
  agents: Partial<Record<RealAgentName, { standIn: ModelStandIn; agent: RealAgent }>>
  /** A fresh repository: most CLIs ask their folder-trust question once per repository. */
  newRepo(name: string): Promise<string>
  /** The agent's screen now, as the daemon captures it. */
  screen(title: string): Promise<string>
  close(): Promise<void>
}

/**
 * A daemon whose `names` are the real CLIs (`pnpm test:deps` installs them), each
 * talking only to its model stand-in on loopback; it polls fast. `close` (in afterAll,
 * before the homes' release) stops the stand-ins.
 */
export async function startRealAgentDaemon(
  homes: ReturnType<typeof tempHomes>,
  names: RealAgentName[],
  settings: Record<string, unknown> = {},
): Promise<RealAgentDaemon> {
  const dir = await homes.make()
  const agents: RealAgentDaemon['agents'] = {}
  for (const name of names) {
    const standIn = await KITS[name].serve()
    agents[name] = { standIn, agent: await KITS[name].setUp(dir, standIn) }
  }
  const set = Object.values(agents)
  // A scratch HOME: the CLIs write there (Claude its mimeapps.list).
  await mkdir(join(dir, 'home'))
  const daemon = await startDaemon({
    home: join(dir, 'svc'),
    env: Object.assign({ HOME: join(dir, 'home') }, ...set.map(({ agent }) => agent.env)),
    config: {
      network: { listen_addr: '' },
      daemon_poll_interval: '200ms',
      branch_prefix: 'agent/',
      default_program: names[0],
      program_overrides: Object.fromEntries(names.map((name) => [name, agents[name]?.agent.program])),
      session_env_passthrough: set.flatMap(({ agent }) => agent.passthrough),
      ...settings,
    },
  })
  return {
    dir,
    daemon,
    agents,
    newRepo: (name) => makeRepo(dir, name),
    async screen(title) {
      const found = (await daemon.client.call('Snapshot', {})).instances.find((instance) => instance.title === title)
      return found ? paneText(daemon.home, found.tabs[0]?.tmux_name as string) : ''
    },
    close: async () => {
      await endAgents(daemon.home)
      await Promise.all(set.map(({ standIn }) => standIn.close()))
    },
  }
}
