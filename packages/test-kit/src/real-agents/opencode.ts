import { execFile } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { ModelStandIn } from '../stand-ins/stand-in.js'
import { agentCli } from './install.js'
import type { RealAgent } from './real-agent.js'

const PROVIDER = 'stand-in'
const MODEL = 'stand-in-model'

/**
 * opencode.json of someone who uses opencode with one OpenAI-compatible provider: the
 * stand-in, as its model and small model (the session title), with the update check off
 * and sharing off.
 */
function config(standIn: ModelStandIn): Record<string, unknown> {
  return {
    $schema: 'https://opencode.ai/config.json',
    model: `${PROVIDER}/${MODEL}`,
    small_model: `${PROVIDER}/${MODEL}`,
    autoupdate: false,
    share: 'disabled',
    provider: {
      [PROVIDER]: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Stand-in',
        options: { baseURL: `${standIn.url}/v1`, apiKey: 'stand-in-key' },
        models: { [MODEL]: { name: 'Stand-in Model' } },
      },
    },
  }
}

/**
 * At every start opencode installs @opencode-ai/plugin (from registry.npmjs.org) into each
 * config directory, unless it finds node_modules there and the package in package-lock.json.
 */
async function seedPluginInstall(configDir: string): Promise<void> {
  await mkdir(join(configDir, 'node_modules'), { recursive: true })
  const lock = { lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } }
  await writeFile(join(configDir, 'package-lock.json'), JSON.stringify(lock))
}

/**
 * Makes opencode's XDG directories in `dir`, its global config sending its model requests
 * to `standIn`. OPENCODE_DISABLE_AUTOUPDATE stops the release check (api.github.com, the
 * npm registry), OPENCODE_DISABLE_MODELS_FETCH the model catalogue (models.opencode.ai);
 * anything else that would leave loopback goes through a proxy at the stand-in, which
 * drops it. All these names pass svc's pane filter (OPENCODE_*, XDG_*, the proxy names).
 */
export async function setUpOpencode(dir: string, standIn: ModelStandIn): Promise<RealAgent> {
  const program = agentCli('opencode')
  const home = join(dir, 'opencode-home')
  const xdg = { XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), XDG_CACHE_HOME: join(home, 'cache'), XDG_STATE_HOME: join(home, 'state') }
  const configDir = join(xdg.XDG_CONFIG_HOME, 'opencode')
  await seedPluginInstall(configDir)
  await writeFile(join(configDir, 'opencode.json'), `${JSON.stringify(config(standIn), null, 2)}\n`)
  const env = {
    ...xdg,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    HTTPS_PROXY: standIn.url,
    HTTP_PROXY: standIn.url,
    NO_PROXY: '127.0.0.1,localhost',
  }
  const { stdout } = await promisify(execFile)(program, ['--version'], { env: { ...process.env, ...env } })
  return { program, env, passthrough: [], version: stdout.trim() }
}
