import { useEffect, useId, useRef, useState, type ReactNode } from 'react'

/**
 * A button that asks once more, saying what will happen, before it acts. The question is
 * named by its own words and puts the focus on Cancel, the harmless answer; Cancel gives
 * the focus back to the button.
 */
export function ConfirmButton({ label, question, onConfirm }: { label: string; question: ReactNode; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false)
  const questionId = useId()
  const trigger = useRef<HTMLButtonElement>(null)
  const cancelled = useRef(false)
  useEffect(() => {
    if (asking || !cancelled.current) return
    cancelled.current = false
    trigger.current?.focus()
  }, [asking])
  if (!asking) {
    return (
      <button type="button" ref={trigger} onClick={() => setAsking(true)}>
        {label}
      </button>
    )
  }
  return (
    <span className="confirm" role="alertdialog" aria-labelledby={questionId}>
      <span id={questionId}>{question}</span>{' '}
      <button type="button" className="danger" onClick={() => (setAsking(false), onConfirm())}>
        Yes, {label.toLowerCase()}
      </button>{' '}
      <button type="button" autoFocus onClick={() => ((cancelled.current = true), setAsking(false))}>
        Cancel
      </button>
    </span>
  )
}
