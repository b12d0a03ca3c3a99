import { Send } from 'lucide-react'
import { useState } from 'react'
import { api, type Session } from '../api'
import { Outcome, useAction } from '../use-action'
import { ui } from './ui'

const DELIVERY_WORDS: Record<string, string> = {
  delivered: 'delivered: the agent took it',
  'not-delivered': 'not delivered',
  'sent-unverified': 'sent; the agent has not shown it yet',
  'could-not-confirm': 'sent; delivery could not be confirmed',
}

/** A prompt sent as a whole (not typed key by key); Ctrl+Enter or ⌘+Enter sends it. */
export function PromptForm({ session }: { session: Session }) {
  const [prompt, setPrompt] = useState('')
  const { busy, outcome, run } = useAction()
  return (
    <form
      data-testid="prompt"
      className="flex flex-col gap-1"
      onSubmit={(event) => {
        event.preventDefault()
        void run(async () => {
          const { status } = await api.call('SendPrompt', { id: session.id, prompt })
          setPrompt('')
          return `Prompt ${DELIVERY_WORDS[status] ?? status}`
        })
      }}
    >
      <div className="flex items-end gap-2">
        <textarea
          aria-label={`prompt for ${session.title}`}
          placeholder={`Prompt for ${session.title}`}
          value={prompt}
          onChange={(event) => setPrompt(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) event.currentTarget.form?.requestSubmit()
          }}
          rows={2}
          className={`${ui.field} min-w-0 flex-1 resize-y`}
        />
        <button type="submit" className={ui.primary} disabled={busy || !prompt.trim()}>
          <Send aria-hidden className="size-4" />
          Send
        </button>
      </div>
      <Outcome outcome={outcome} />
    </form>
  )
}
