import { basename } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { commandWords } from '../infra/command-words.js'

/**
 * A question an agent asks before it takes any prompt (folder trust, a new MCP server):
 * what the daemon answers, or leaves to the user, under `agent_gates`.
 */
export interface Gate {
  /** In words, for the log and the user: "folder trust". */
  name: string
  /**
   * Each pattern must match a line of the visible screen, from the line's start (after
   * its frame): the question together with chrome only this dialog draws.
   */
  lines: RegExp[]
  /** Marks the line of the selected option. */
  cursor: RegExp
  /** The option that accepts it: the daemon moves the cursor there and presses Enter. */
  accept: RegExp
}

/**
 * What the daemon knows of one program's screens. Screen patterns run over the visible
 * screen as `screenText` gives it: one line per drawn line, frames stripped, blank lines
 * dropped, and a rule (a line drawn only of box-drawing characters) as `─`.
 */
export interface Profile {
  name: string
  /** The version the screens were read from (docs/sessions.md's table). */
  tested: string
  gates: Gate[]
  /** The composer ready for input, placed as the program places it (so an echo of a sent prompt is not one). */
  composer: RegExp
  /** An empty composer (its placeholder, or its input line with nothing on it): what a submitted prompt leaves. */
  empty: RegExp
  /** The agent at work: its interrupt hint where the program draws it, next to the composer (not where prose could quote it). */
  busy: RegExp
  /**
   * Text the program draws beside its main column (opencode's session sidebar), cut from
   * each line before it is read: it shares the composer's rows.
   */
  aside?: RegExp
  /** How the composer shows a long paste in place of its text; group 1 is the line count it names. */
  pastePlaceholder?: RegExp
  /**
   * How long a new agent's screen must stay still, composer showing, before the composer
   * is trusted the first time: some draw it, then raise a dialog over it a moment later.
   */
  composerSettlesMs: number
  /** A pause between a paste and its Enter, for agents that take a quick Enter as part of the paste. */
  enterDelayMs?: number
}

/** What one look at a known program's screen found. */
export interface Reading {
  /** A start-up gate asks its question. */
  gate?: Gate
  /** The agent works (its interrupt hint shows). */
  busy: boolean
  /** The composer takes input (while working, too: a prompt then waits its turn). */
  composer: boolean
  /** …and holds nothing. */
  empty: boolean
}

const FRAME = /^[\s\u2500-\u257f\u2580-\u259f]+|[\s\u2500-\u257f\u2580-\u259f]+$/g
const RULE = /^[\s\u2500-\u257f]+$/

/** The visible screen's lines without colors, blank lines, frames and what `aside` cuts; a rule becomes `─`. */
export function screenLines(screen: string, aside?: RegExp): string[] {
  return stripVTControlCharacters(screen)
    .split('\n')
    .map((line) => (aside ? line.replace(aside, '') : line))
    .map((line) => (RULE.test(line) && line.trim() !== '' ? '─' : line.replace(FRAME, '')))
    .filter((line) => line !== '')
}

/** Lines a dialog may have under it (its footer hints) and still be the last thing drawn. */
const UNDER_A_DIALOG = 2

/**
 * A dialog asks only while it is the last thing drawn: one whose question stays on screen
 * above what came after it (an agent that restarted under it) asks nothing any more.
 */
function asks(lines: readonly string[], gate: Gate): boolean {
  let lowest = -1
  for (const pattern of gate.lines) {
    const at = lines.findLastIndex((line) => pattern.test(line))
    if (at < 0) return false
    lowest = Math.max(lowest, at)
  }
  const under = lines.slice(lowest + 1).filter((line) => line !== '─')
  return under.length <= UNDER_A_DIALOG
}

/**
 * Reads a screen. A gate shows only with all of its own lines, as the last thing drawn,
 * and never beside a ready composer: a reply that quotes a dialog sits above one.
 */
export function readScreen(profile: Profile, screen: string): Reading {
  const lines = screenLines(screen, profile.aside)
  const text = lines.join('\n')
  const composer = profile.composer.test(text)
  const gate = composer ? undefined : profile.gates.find((candidate) => asks(lines, candidate))
  return { ...(gate ? { gate } : {}), busy: profile.busy.test(text), composer, empty: composer && profile.empty.test(text) }
}

/** Words that run the program named after them: `node path/to/gemini` is gemini. */
const LAUNCHERS = new Set(['node', 'nodejs', 'npx', 'bun', 'bunx', 'deno', 'env', 'exec', 'nice', 'nohup'])

/**
 * The program a command line runs, by its executable's basename, looking past
 * launchers, their flags and `NAME=value` words.
 */
export function programOf(commandLine: string): string {
  for (const word of commandWords(commandLine)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || word.startsWith('-')) continue
    const name = basename(word)
    if (!LAUNCHERS.has(name)) return name
  }
  return ''
}
