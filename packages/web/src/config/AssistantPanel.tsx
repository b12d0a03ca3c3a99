import { X } from 'lucide-react'
import { lazy, Suspense } from 'react'
import { configAssistantStreamPath } from '@svc/protocol/browser'

// xterm is loaded when the assistant is opened, not with the page.
const TerminalView = lazy(() => import('../components/TerminalView').then((module) => ({ default: module.TerminalView })))

/**
 * The config assistant's terminal on the page: an agent briefed with every key that
 * changes them with `svc config set`. Closing the panel leaves it running for a while
 * (the daemon reaps it a minute after its last viewer left), so reopening continues.
 */
export function AssistantPanel({ close, ended }: { close: () => void; ended: () => void }) {
  return (
    <section aria-labelledby="config-assistant-heading" data-testid="assistant" className="flex min-w-0 flex-col gap-2 rounded-lg border border-line bg-surface p-3">
      <div className="flex items-center gap-2">
        <h2 id="config-assistant-heading" className="m-0 flex-1 text-base font-semibold">
          Config assistant
        </h2>
        <button type="button" onClick={close} aria-label="Close the config assistant" className="rounded-md p-1 text-muted hover:bg-raised hover:text-fg">
          <X aria-hidden className="size-4" />
        </button>
      </div>
      <p className="m-0 text-sm text-muted">Ask it about any setting; it explains each change before it makes it, and the values here follow.</p>
      <Suspense fallback={<p className="text-sm text-muted">Loading the terminal…</p>}>
        <TerminalView
          label="config assistant terminal"
          path={configAssistantStreamPath}
          endedText="the config assistant ended"
          unavailableText="the config assistant is not running"
          ended={ended}
        />
      </Suspense>
    </section>
  )
}
