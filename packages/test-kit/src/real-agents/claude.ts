import { execFile } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { ModelStandIn } from '../stand-ins/stand-in.js'
import { agentCli } from './install.js'
import type { RealAgent } from './real-agent.js'

/**
 * The environment that keeps Claude on loopback. CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC
 * covers the auto-updater, telemetry and error reporting; it leaves the official plugin
 * marketplace (downloads.claude.ai, a git clone from github.com) to its own variable. What
 * no setting turns off (an account's OAuth profile from api.anthropic.com) goes through a
 * proxy at the stand-in, which drops it. All these names pass svc's pane filter as they are.
 */
function loopbackOnly(standIn: ModelStandIn): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: standIn.url,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    HTTPS_PROXY: standIn.url,
    HTTP_PROXY: standIn.url,
    NO_PROXY: '127.0.0.1,localhost',
  }
}

/**
 * The .claude.json of someone who already uses Claude: onboarding done (else a theme picker
 * and a connectivity check of api.anthropic.com). No `projects` entry, so a repository
 * raises the folder-trust dialog. (Trust is saved for the repository's main checkout: a
 * second worktree of a trusted repository does not ask again.)
 */
async function writeConfig(dir: string, version: string): Promise<void> {
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, lastOnboardingVersion: version, theme: 'dark' }))
}

/**
 * Makes a CLAUDE_CONFIG_DIR in `dir` and the environment that sends Claude's model requests
 * to `standIn`. The credential is an ANTHROPIC_AUTH_TOKEN: an ANTHROPIC_API_KEY would raise
 * "Detected a custom API key" unless its last 20 characters were approved in .claude.json.
 */
export async function setUpClaude(dir: string, standIn: ModelStandIn): Promise<RealAgent> {
  const program = agentCli('claude')
  const config = join(dir, 'claude-config')
  const env = { ...loopbackOnly(standIn), CLAUDE_CONFIG_DIR: config, ANTHROPIC_AUTH_TOKEN: 'stand-in-token' }
  const { stdout } = await promisify(execFile)(program, ['--version'], { env: { ...process.env, ...env } })
  const version = stdout.trim().replace(/ \(Claude Code\)$/, '')
  await writeConfig(config, version)
  return { program, env, passthrough: [], version }
}

/**
 * Makes `home` an svc account's home for Claude (its CLAUDE_CONFIG_DIR), logged in with
 * `token` as a Claude subscription's OAuth access token that expires in ten years. Claude
 * sends it to ANTHROPIC_BASE_URL as `authorization: Bearer <token>` (with the
 * oauth-2025-04-20 beta), so the stand-in's `credential` says which account's home was used.
 */
export async function setUpClaudeAccount(claude: RealAgent, home: string, token: string): Promise<void> {
  await writeConfig(home, claude.version)
  const credentials = {
    claudeAiOauth: {
      accessToken: token,
      refreshToken: `${token}-refresh`,
      expiresAt: Date.now() + 10 * 365 * 24 * 3600_000,
      scopes: ['user:inference', 'user:profile', 'user:sessions:claude_code'],
      subscriptionType: 'max',
    },
  }
  await writeFile(join(home, '.credentials.json'), JSON.stringify(credentials), { mode: 0o600 })
}
