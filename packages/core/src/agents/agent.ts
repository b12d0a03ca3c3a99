import { basename } from 'node:path'
import { commandWords } from '../infra/command-words.js'

/** What the daemon knows about one agent program. */
export interface Agent {
  name: string
  /** The usage-limit banner, matched case-insensitively (limit_patterns.<agent> replaces it). */
  limitBanner?: string
  /** Environment names of the agent's own credentials and settings, passed to its panes. */
  env: string[]
  /** Name prefixes passed the same way (for example CLAUDE_CODE_*). */
  envPrefixes: string[]
  /** Provider-selecting variables: when one is set, its cloud credential group is passed too. */
  providers: Record<string, CloudGroup>
  /** The variable that points the agent at an account's credential home. */
  accountHome?: string
  /** The file whose presence in that home means logged in. */
  credentialFile?: string
  /** That home when the variable is unset, relative to the user's home directory. */
  defaultHome?: string
  /** Variables that carry an identity of their own: removed wherever an account is in use. */
  accountScoped?: string[]
  /** The arguments that start the agent's own login flow. */
  loginArgs?: string
}

export type CloudGroup = 'aws' | 'google' | 'azure'

/** Cloud credentials: never passed unless the agent's provider-selecting variable is set. */
export const CLOUD_GROUPS: Record<CloudGroup, { names: string[]; prefixes: string[] }> = {
  aws: { names: [], prefixes: ['AWS_'] },
  google: {
    names: ['GOOGLE_APPLICATION_CREDENTIALS', 'CLOUD_ML_REGION'],
    prefixes: ['GOOGLE_CLOUD_', 'GCLOUD_', 'CLOUDSDK_', 'ANTHROPIC_VERTEX_', 'VERTEX_'],
  },
  azure: { names: [], prefixes: ['AZURE_'] },
}

export const AGENTS: Record<string, Agent> = {
  claude: {
    name: 'claude',
    limitBanner: 'Claude usage limit reached.',
    env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_MODEL', 'CLAUDE_CONFIG_DIR'],
    envPrefixes: ['CLAUDE_CODE_', 'ANTHROPIC_DEFAULT_'],
    providers: { CLAUDE_CODE_USE_BEDROCK: 'aws', CLAUDE_CODE_USE_VERTEX: 'google', CLAUDE_CODE_USE_FOUNDRY: 'azure' },
    accountHome: 'CLAUDE_CONFIG_DIR',
    credentialFile: '.credentials.json',
    defaultHome: '.claude',
    accountScoped: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
    loginArgs: 'auth login',
  },
  codex: {
    name: 'codex',
    limitBanner: "You've hit your usage limit",
    env: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_ORG_ID', 'OPENAI_PROJECT_ID', 'CODEX_HOME'],
    envPrefixes: ['CODEX_'],
    providers: {},
    accountHome: 'CODEX_HOME',
    credentialFile: 'auth.json',
    defaultHome: '.codex',
    accountScoped: ['OPENAI_API_KEY', 'CODEX_API_KEY', 'CODEX_ACCESS_TOKEN'],
    loginArgs: 'login',
  },
  aider: {
    name: 'aider',
    env: ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENROUTER_API_KEY', 'DEEPSEEK_API_KEY', 'GEMINI_API_KEY'],
    envPrefixes: ['AIDER_'],
    providers: {},
  },
  gemini: {
    name: 'gemini',
    env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION'],
    envPrefixes: ['GEMINI_'],
    providers: { GOOGLE_GENAI_USE_VERTEXAI: 'google' },
  },
  amp: { name: 'amp', env: ['AMP_API_KEY', 'AMP_URL'], envPrefixes: ['AMP_'], providers: {} },
  opencode: { name: 'opencode', env: ['OPENCODE_CONFIG'], envPrefixes: ['OPENCODE_'], providers: {} },
  devin: { name: 'devin', limitBanner: 'quota exhausted', env: ['DEVIN_API_KEY'], envPrefixes: ['DEVIN_'], providers: {} },
}

export const AGENT_NAMES = Object.keys(AGENTS)

/** An agent that keeps its credentials in a home of its own, so it can have accounts. */
export type AccountAgent = Agent & Required<Pick<Agent, 'accountHome' | 'credentialFile' | 'defaultHome' | 'accountScoped' | 'loginArgs'>>

export function takesAccounts(agent: Agent | undefined): agent is AccountAgent {
  return agent?.accountHome !== undefined
}

export const ACCOUNT_AGENTS = Object.values(AGENTS).filter(takesAccounts).map((agent) => agent.name)

/** Own properties only: a program named `constructor` is a command, not a member of every object. */
export function agentNamed(name: string): Agent | undefined {
  return Object.hasOwn(AGENTS, name) ? AGENTS[name] : undefined
}

/**
 * The agent behind a `program`: a known name, or a command line whose executable's
 * basename is a known name; otherwise none.
 */
export function agentOf(program: string): Agent | undefined {
  const executable = commandWords(program)[0] ?? ''
  return agentNamed(program.trim()) ?? agentNamed(basename(executable))
}

/**
 * The command line a session runs: a known agent name goes through program_overrides,
 * anything else is already a command line.
 */
export function commandLineOf(program: string, overrides: Record<string, string>): string {
  const name = program.trim()
  if (!agentNamed(name)) return name
  return Object.hasOwn(overrides, name) ? (overrides[name] as string) : name
}
