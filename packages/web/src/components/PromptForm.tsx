import { useState } from 'react'
import { api, type Session } from '../api'
import { Outcome, useAction } from '../use-action'

const DELIVERY_WORDS: Record<string, string> = {
  delivered: 'delivered: the agent took it',
  'not-delivered': 'not delivered',
  'sent-unverified': 'sent; the agent has not shown it yet',
  'could-not-confirm': 'sent; delivery could not be confirmed',
}

export function PromptForm({ session }: { session: Session }) {
  const [prompt, setPrompt] = useState('')
  const { busy, outcome, run } = useAction()
  return (
    <form
      className="prompt"
      onSubmit={(event) => {
        event.preventDefault()
        void run(async () => {
          const { status } = await api.call('SendPrompt', { id: session.id, prompt })
          setPrompt('')
          return `Prompt ${DELIVERY_WORDS[status] ?? status}`
        })
      }}
    >
      <textarea aria-label={`prompt for ${session.title}`} placeholder={`Prompt for ${session.title}`} value={prompt} onChange={(event) => setPrompt(event.target.value)} rows={2} />
      <button type="submit" disabled={busy || !prompt.trim()}>
        Send
      </button>
      <Outcome outcome={outcome} />
    </form>
  )
}
