import { AlertDialog } from 'radix-ui'
import { ui } from './ui'

/**
 * A button that asks once more before it acts: the question names what it acts on and
 * `details` says exactly what goes. Cancel, the harmless answer, has the focus; Esc
 * cancels; closing gives the focus back to the button.
 */
export function ConfirmButton({ label, question, details, onConfirm }: { label: string; question: string; details: string; onConfirm: () => void }) {
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger className={ui.button}>{label}</AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className={ui.overlay} />
        <AlertDialog.Content className={ui.panel}>
          <AlertDialog.Title className="text-lg font-semibold">{question}</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm">{details}</AlertDialog.Description>
          <div className="mt-5 flex flex-wrap justify-end gap-2">
            <AlertDialog.Cancel className={ui.button}>Cancel</AlertDialog.Cancel>
            <AlertDialog.Action className={ui.danger} onClick={onConfirm}>
              Yes, {label.toLowerCase()}
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  )
}
