import { useState } from 'react'
import { raiseToast } from './toast'

/**
 * Runs daemon calls from a page: the last outcome (or the daemon's refusal) to show, and
 * whether one is running. Every outcome is raised as a toast too, so it is seen even when
 * the line beside the control is out of view.
 */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>()
  const show = (shown: { ok: boolean; text: string }) => (setOutcome(shown), raiseToast(shown))
  async function run(work: () => Promise<string | void>): Promise<void> {
    setBusy(true)
    setOutcome(undefined)
    try {
      const text = await work()
      if (text) show({ ok: true, text })
    } catch (error) {
      show({ ok: false, text: (error as Error).message })
    } finally {
      setBusy(false)
    }
  }
  return { busy, outcome, run }
}

/** The outcome in words beside the control; the toast is the one announced. */
export function Outcome({ outcome }: { outcome: { ok: boolean; text: string } | undefined }) {
  if (!outcome) return null
  return <p className={outcome.ok ? 'ok text-sm text-tone-running' : 'error text-sm text-danger'}>{outcome.text}</p>
}
