import { execFile } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { ModelStandIn } from '../stand-ins/stand-in.js'
import { agentCli } from './install.js'
import type { RealAgent } from './real-agent.js'

const MODEL = 'gpt-5.5'
/** Names the pane filter passes as they are (CODEX_*, and the proxy names): nothing to pass through. */
const KEY_NAME = 'CODEX_STAND_IN_API_KEY'

/**
 * config.toml of someone who already uses Codex with an API-key provider: the model
 * migration notice and the screen-reader check behind them. No [projects.*] entry, so
 * every new repository raises the folder-trust dialog. (Trust is saved for the
 * repository's root: a second worktree of a trusted repository does not ask again.)
 */
function config(standIn: ModelStandIn): string {
  return `model = "${MODEL}"
model_provider = "stand-in"
check_for_update_on_startup = false

[model_providers.stand-in]
name = "Stand-in"
base_url = "${standIn.url}/v1"
wire_api = "responses"
env_key = "${KEY_NAME}"

[analytics]
enabled = false

# Each of these reaches the internet at start (github.com, api.github.com, chatgpt.com).
# daemon_auto_start: without it Codex copies itself into CODEX_HOME and leaves a shared
# app-server daemon running after the pane is gone.
[features]
daemon_auto_start = false
plugins = false
remote_plugin = false
apps = false
in_app_updates = false
tool_suggest = false

[tui]
screen_reader_detection_done = true
show_tooltips = false

[notice.model_migrations]
"${MODEL}" = "gpt-6-sol"
`
}

/**
 * Writes a CODEX_HOME in `dir` that sends Codex's model requests to `standIn`. What no
 * setting turns off (the announcement tip from raw.githubusercontent.com) goes through a
 * proxy at the stand-in, which drops it: no request leaves loopback.
 */
export async function setUpCodex(dir: string, standIn: ModelStandIn): Promise<RealAgent> {
  const program = agentCli('codex')
  const home = join(dir, 'codex-home')
  await mkdir(home, { recursive: true })
  await writeFile(join(home, 'config.toml'), config(standIn))
  const { stdout } = await promisify(execFile)(program, ['--version'], { env: { ...process.env, CODEX_HOME: home } })
  return {
    program,
    env: {
      CODEX_HOME: home,
      [KEY_NAME]: 'stand-in-key',
      HTTPS_PROXY: standIn.url,
      HTTP_PROXY: standIn.url,
      NO_PROXY: '127.0.0.1,localhost',
    },
    passthrough: [],
    version: stdout.trim().replace(/^codex-cli /, ''),
  }
}
