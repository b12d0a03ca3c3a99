import { CLOUD_GROUPS, type Agent } from '../agents/agent.js'

/**
 * System and terminal names, identity and transport settings every pane may see. TERM is
 * left to tmux, which sets the right one for its panes.
 */
const ALLOWED = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'EDITOR', 'VISUAL', 'PAGER',
  'COLORTERM', 'DISPLAY', 'WAYLAND_DISPLAY', 'SSH_AUTH_SOCK', 'SSH_AGENT_PID',
  'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_SSH_COMMAND',
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy',
  'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'GIT_SSL_CAINFO',
  'GH_TOKEN', 'GITHUB_TOKEN', 'GH_HOST', 'GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN',
])
const ALLOWED_PREFIXES = ['LC_', 'XDG_']

function matches(name: string, names: ReadonlySet<string> | readonly string[], prefixes: readonly string[]): boolean {
  const listed = 'has' in names ? names.has(name) : names.includes(name)
  return listed || prefixes.some((prefix) => name.startsWith(prefix))
}

/**
 * Default-deny: a pane sees the allowlist, its agent's own names, the cloud group its
 * agent's provider-selecting variable asks for, and the exact names in
 * session_env_passthrough. Nothing else from the daemon's environment.
 */
export function paneEnvironment(
  source: NodeJS.ProcessEnv,
  agent: Agent | undefined,
  passthrough: readonly string[],
): Record<string, string> {
  const clouds = Object.entries(agent?.providers ?? {})
    .filter(([selector]) => source[selector])
    .map(([, group]) => CLOUD_GROUPS[group])
  const allowed = (name: string) =>
    matches(name, ALLOWED, ALLOWED_PREFIXES) ||
    (agent !== undefined && matches(name, agent.env, agent.envPrefixes)) ||
    clouds.some((cloud) => matches(name, cloud.names, cloud.prefixes)) ||
    passthrough.includes(name)
  return Object.fromEntries(
    Object.entries(source).filter((entry): entry is [string, string] => entry[1] !== undefined && allowed(entry[0])),
  )
}
