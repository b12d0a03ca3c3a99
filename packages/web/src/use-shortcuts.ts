import { useEffect, useRef } from 'react'
import { focusRail, focusTerminal, inWidget, leavesTerminal, typingIn } from './keyboard'
import { openNewSession } from './new-session'
import { hrefOf, type Page } from './route'

/**
 * The page-wide keys (the rail takes `/`, `j`/`k` and the arrows itself): `n`, `?`,
 * Enter to the selected session's terminal, Ctrl+] out of a terminal, Esc out of a field.
 */
export function useShortcuts(page: Page, showShortcuts: () => void): void {
  const latest = useRef({ page, showShortcuts })
  latest.current = { page, showShortcuts }
  useEffect(() => {
    const pressed = (event: KeyboardEvent) => {
      const target = event.target instanceof HTMLElement ? event.target : null
      const inTerminal = target?.closest('.xterm') != null
      if (inTerminal) {
        if (!leavesTerminal(event)) return
        event.preventDefault()
        return focusRail()
      }
      if (event.key === 'Escape' && typingIn(target) && !inWidget(target) && target?.closest('[data-rail],[data-session-pane]')) return focusRail()
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typingIn(target) || inWidget(target)) return
      const { page, showShortcuts } = latest.current
      if (event.key === '?') return (event.preventDefault(), showShortcuts())
      if (event.key === 'n') return (event.preventDefault(), openNewSession())
      if (event.key !== 'Enter') return
      // Enter on a rail row opens that session and its terminal; on nothing in particular, the selected one's.
      const row = target?.closest<HTMLElement>('[data-rail] a[data-session-id]')
      const id = row?.dataset.sessionId ?? (target === document.body && page.name === 'session' ? page.id : undefined)
      if (id === undefined) return
      event.preventDefault()
      window.location.hash = hrefOf({ name: 'session', id })
      focusTerminal(id)
    }
    document.addEventListener('keydown', pressed)
    return () => document.removeEventListener('keydown', pressed)
  }, [])
}
