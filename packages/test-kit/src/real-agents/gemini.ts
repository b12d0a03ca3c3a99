import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { promisify } from 'node:util'
import type { ModelStandIn } from '../stand-ins/stand-in.js'
import { agentCli } from './install.js'
import type { RealAgent } from './real-agent.js'

/**
 * settings.json of someone who already uses Gemini CLI with an API key: auth chosen (no
 * auth dialog), folder trust on (Gemini's default, written out) and no trustedFolders.json,
 * so every new worktree raises the folder-trust dialog. The rest would reach Google at
 * start or on the first turn: update checks (npm), usage statistics (Clearcut), telemetry,
 * the IDE companion.
 */
const SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: true } },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  ide: { enabled: false, hasSeenNudge: true },
}

/** Gemini CLI is a node script (`#!/usr/bin/env node`): run it with the node on PATH, as its shebang would. */
function nodeOnPath(): string {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean)
  return dirs.map((dir) => join(dir, 'node')).find((path) => existsSync(path)) ?? process.execPath
}

/**
 * Writes a GEMINI_CLI_HOME in `dir` (Gemini reads `<it>/.gemini/settings.json` and keeps
 * its state there instead of ~/.gemini) that sends Gemini's model requests to `standIn`.
 * GOOGLE_GEMINI_BASE_URL is the only way to move the API (the genai SDK reads it); svc
 * passes it to Gemini's panes as one of Gemini's own names.
 */
export async function setUpGemini(dir: string, standIn: ModelStandIn): Promise<RealAgent> {
  const cli = agentCli('gemini')
  const node = nodeOnPath()
  const home = join(dir, 'gemini-home')
  await mkdir(join(home, '.gemini'), { recursive: true })
  await writeFile(join(home, '.gemini', 'settings.json'), `${JSON.stringify(SETTINGS, null, 2)}\n`)
  const env = { GEMINI_CLI_HOME: home, GEMINI_API_KEY: 'stand-in-key', GOOGLE_GEMINI_BASE_URL: standIn.url }
  // No relaunch: --version needs no bigger heap, and answers in half the time.
  const { stdout } = await promisify(execFile)(node, [cli, '--version'], {
    env: { ...process.env, ...env, GEMINI_CLI_NO_RELAUNCH: 'true' },
  })
  return { program: `${node} ${cli}`, env, passthrough: [], version: stdout.trim() }
}
