import { lazy, Suspense } from 'react'
import type { TerminalProps } from './TerminalView'

/** xterm is most of the app's weight: loaded when a terminal is first shown, not with the page. */
const TerminalView = lazy(() => import('./TerminalView').then((module) => ({ default: module.TerminalView })))

export function Terminal(props: TerminalProps) {
  return (
    <Suspense fallback={<p className="p-2 text-sm text-muted">Opening the terminal…</p>}>
      <TerminalView {...props} />
    </Suspense>
  )
}
