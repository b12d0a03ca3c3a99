/**
 * Keys that were removed, with the guidance given to whoever still sends one: in
 * config.json, to SetConfigValue, as a request field at any depth, or as a CLI flag.
 */
export const REMOVED_KEYS: Readonly<Record<string, string>> = {
  auto_yes:
    'auto_yes was removed; put approval flags in the agent command line instead, e.g. svc config set program_overrides.claude "claude --dangerously-skip-permissions"',
}

/**
 * The guidance for `key` when it was removed. An own-property lookup: a key such as
 * `constructor` or `__proto__` names a member of every object, not a removed key.
 */
export function removedKeyGuidance(key: string): string | undefined {
  return Object.hasOwn(REMOVED_KEYS, key) ? REMOVED_KEYS[key] : undefined
}
