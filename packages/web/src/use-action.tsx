import { useState } from 'react'

/** Runs daemon calls from a page: the last outcome (or the daemon's refusal) to show, and whether one is running. */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>()
  async function run(work: () => Promise<string | void>): Promise<void> {
    setBusy(true)
    setOutcome(undefined)
    try {
      const text = await work()
      if (text) setOutcome({ ok: true, text })
    } catch (error) {
      setOutcome({ ok: false, text: (error as Error).message })
    } finally {
      setBusy(false)
    }
  }
  return { busy, outcome, run }
}

/** The outcome in words, announced as it appears: a refusal at once, a success politely. */
export function Outcome({ outcome }: { outcome: { ok: boolean; text: string } | undefined }) {
  if (!outcome) return null
  return outcome.ok ? (
    <p className="ok" role="status">
      {outcome.text}
    </p>
  ) : (
    <p className="error" role="alert">
      {outcome.text}
    </p>
  )
}
