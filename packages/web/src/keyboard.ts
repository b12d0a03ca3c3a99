/**
 * The page's keyboard shortcuts, listed by the `?` overlay from SHORTCUTS. Esc belongs to
 * the agent inside a terminal (it interrupts Claude Code, Codex, vim…), so the terminal is
 * left with Ctrl+] (telnet's escape key), which no agent reads; Esc leaves a text field.
 */
/** Each with its keys, any of which does it. */
export const SHORTCUTS: Array<[keys: string[], what: string]> = [
  [['n'], 'New session'],
  [['/'], 'Filter the sessions'],
  [['j', '↓'], 'Next session'],
  [['k', '↑'], 'Previous session'],
  [['Enter'], "Type in the selected session's terminal"],
  [['Ctrl+]'], 'Leave the terminal, back to the session list (Esc goes to the agent)'],
  [['Esc'], 'Leave the filter or the prompt box, back to the session list'],
  [['?'], 'Show these shortcuts'],
]

/** Whether a key pressed there is someone typing, not a shortcut. */
export function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)
}

/** Whether a key was meant for an open menu, dialog or list box (they take their own keys). */
export function inWidget(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && target.closest('[role=dialog],[role=alertdialog],[role=menu],[role=listbox],[role=tablist]') !== null
}

export const leavesTerminal = (event: KeyboardEvent): boolean => event.ctrlKey && (event.key === ']' || event.code === 'BracketRight')

/** The rail's row of the selected session, else its first. */
export function focusRail(): void {
  const rows = document.querySelector('[data-rail]')
  ;(rows?.querySelector<HTMLElement>('a[aria-current=page]') ?? rows?.querySelector<HTMLElement>('a[data-session-id]'))?.focus()
}

/** Focuses the selected session's terminal, waiting a little for it to load and open. */
export function focusTerminal(session: string): void {
  const until = Date.now() + 3000
  const attempt = () => {
    const input = document.querySelector<HTMLElement>(`[data-session-pane="${CSS.escape(session)}"] .xterm-helper-textarea`)
    if (input) input.focus()
    else if (Date.now() < until) setTimeout(attempt, 50)
  }
  attempt()
}
