import type { ConfigResolver } from '../config/resolver.js'
import type { AgentGatePolicy } from '../config/keys.js'

/**
 * `agent_gates` for a repository's sessions: a repository may ask for more caution than
 * the global setting, never less, since a cloned repository must not grant itself the
 * answers to its own trust questions.
 */
export async function gatePolicy(resolver: ConfigResolver, repoPath: string): Promise<AgentGatePolicy> {
  if (resolver.global.get('agent_gates') === 'ask') return 'ask'
  const { settings } = await resolver.forRoot(repoPath).catch(() => ({ settings: resolver.global.all() }))
  return settings.agent_gates === 'ask' ? 'ask' : 'accept'
}
