/**
 * Keys that were removed, with the guidance given to whoever still sends one: in
 * config.json, to SetConfigValue, as a request field at any depth, or as a CLI flag.
 */
export const REMOVED_KEYS: Readonly<Record<string, string>> = {
  auto_yes:
    'auto_yes was removed; put approval flags in the agent command line instead, e.g. svc config set program_overrides.claude "claude --dangerously-skip-permissions"',
}
