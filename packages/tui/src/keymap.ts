import type { Key } from 'ink'
import type { Session } from './state/types.js'

/** What can take the place of the preview (or, for help and tasks, of the list and the preview). */
export type Dialog = { kind: 'help' | 'filter' | 'new' | 'tasks' } | { kind: 'prompt' | 'tabs' | 'kill' | 'handoff'; session: Session }

/** What a key on the main screen asks for. */
export type MainAction =
  | { type: 'move'; step: number }
  | { type: 'open'; dialog: Dialog }
  | { type: 'quit' | 'clear-filter' | 'config-assistant' | 'sort' }
  | { type: 'archive' | 'restore' | 'attach' | 'archived'; session: Session }

const PAGE = 10

const SCREEN_KEYS: Record<string, MainAction> = {
  q: { type: 'quit' },
  '?': { type: 'open', dialog: { kind: 'help' } },
  '/': { type: 'open', dialog: { kind: 'filter' } },
  n: { type: 'open', dialog: { kind: 'new' } },
  T: { type: 'open', dialog: { kind: 'tasks' } },
  C: { type: 'config-assistant' },
  s: { type: 'sort' },
}

const SESSION_DIALOGS: Record<string, 'prompt' | 'tabs' | 'kill' | 'handoff'> = { p: 'prompt', t: 'tabs', K: 'kill', h: 'handoff' }
const SESSION_CALLS: Record<string, 'archive' | 'restore'> = { a: 'archive', r: 'restore' }

/**
 * The main screen's keymap: a key, and the session selected, to what it asks for;
 * undefined for a key that does nothing (a session's key with none selected, enter on a
 * session with no agent tab to attach to). The footer and the help list these keys (keys.ts).
 */
export function mainAction(input: string, key: Key, selected: Session | undefined): MainAction | undefined {
  if (key.upArrow || input === 'k') return { type: 'move', step: -1 }
  if (key.downArrow || input === 'j') return { type: 'move', step: 1 }
  if (key.pageUp) return { type: 'move', step: -PAGE }
  if (key.pageDown) return { type: 'move', step: PAGE }
  if (key.escape) return { type: 'clear-filter' }
  const onScreen = SCREEN_KEYS[input]
  if (onScreen) return onScreen
  if (selected === undefined) return undefined
  if (key.return && selected.liveness_name === 'archived') return { type: 'archived', session: selected }
  if (key.return) return selected.tabs[0]?.tmux_name ? { type: 'attach', session: selected } : undefined
  const dialog = SESSION_DIALOGS[input]
  if (dialog) return { type: 'open', dialog: { kind: dialog, session: selected } }
  const call = SESSION_CALLS[input]
  return call ? { type: call, session: selected } : undefined
}
