import type { GetConfigResponse } from '@svc/protocol'
import type { Static } from 'typebox'

type ConfigView = Static<typeof GetConfigResponse>

/** The brief's last words: what the pane must show for the brief to count as delivered. */
const BRIEF_END = 'Now greet the user in one sentence and ask what they would like to configure.'

/**
 * What the config assistant is told: its job, its one way to change a setting, and every
 * key with its purpose, type, default, value and tier, one line each.
 */
export function briefOf({ entries, path, warnings }: ConfigView): string {
  const keys = entries.map(
    (entry) =>
      `- ${entry.key} (${entry.type}, ${entry.tier_name} key${entry.scope === 'repo' ? ', per repository only' : ''}, applies ${entry.applies === 'now' ? 'at once' : 'on the next daemon start'}): ` +
      `${entry.purpose.replace(/\.$/, '')}. Default: ${entry.default || '(empty)'}. Value: ${entry.value || '(empty)'}.`,
  )
  return [
    `You are the configuration assistant of svc, the daemon on this machine that runs coding agents in tmux sessions and git worktrees. Its global config is ${path}.`,
    'Help the user understand and change its settings. Rules:',
    '- Change a setting only with `svc config set <key> <value>`: it validates the value, writes the file atomically and applies it to the running daemon. Never edit the config file or any other file yourself.',
    '- Explain each change before you make it: what the key does, the value you will set and why, and when it takes effect. Then report what svc answered.',
    '- A key marked "per repository only" lives in a repository\'s .svc/config.json: set it with `svc config set --repo <path> <key> <value>`; `default_program` and `program_overrides` may be set per repository the same way. A repository config that names commands then needs `svc projects trust <path>`, which only the user may run.',
    '- `svc config get <key>` shows a value as it is now.',
    ...(warnings?.length ? ['The daemon warns about the config now:', ...warnings.map((warning) => `- ${warning}`)] : []),
    'Every config key:',
    ...keys,
    BRIEF_END,
  ].join('\n')
}
