import { CLAUDE } from './claude.js'
import { CODEX } from './codex.js'
import { GEMINI } from './gemini.js'
import { OPENCODE } from './opencode.js'
import { programOf, type Profile } from './profile.js'

/** The programs whose screens the daemon knows; any other runs program-agnostic. */
export const PROFILES: Record<string, Profile> = { claude: CLAUDE, codex: CODEX, gemini: GEMINI, opencode: OPENCODE }

export function profileNamed(name: string): Profile | undefined {
  return Object.hasOwn(PROFILES, name) ? PROFILES[name] : undefined
}

/**
 * The profile of the program a command line runs (`claude --model opus` is Claude's,
 * as is `/opt/bin/claude`); none for anything else, a wrapper script included.
 */
export function profileFor(commandLine: string): Profile | undefined {
  return profileNamed(programOf(commandLine))
}
