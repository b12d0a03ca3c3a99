import { useState, type ReactNode } from 'react'

/** A button that asks once more, saying what will happen, before it acts. */
export function ConfirmButton({ label, question, onConfirm }: { label: string; question: ReactNode; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false)
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)}>
        {label}
      </button>
    )
  }
  return (
    <span className="confirm" role="alertdialog">
      {question}{' '}
      <button type="button" className="danger" onClick={() => (setAsking(false), onConfirm())}>
        Yes, {label.toLowerCase()}
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  )
}
