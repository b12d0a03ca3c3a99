import { X } from 'lucide-react'
import { Toast } from 'radix-ui'
import { useSyncExternalStore } from 'react'

/** One outcome shown as a toast: a success politely, a refusal assertively and longer. */
interface Raised {
  id: number
  ok: boolean
  text: string
}

let raised: Raised[] = []
let next = 0
const listeners = new Set<() => void>()

function changed(list: Raised[]): void {
  raised = list
  for (const listener of listeners) listener()
}

export function raiseToast(outcome: { ok: boolean; text: string }): void {
  changed([...raised, { id: ++next, ...outcome }].slice(-4))
}

function useRaised(): Raised[] {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => raised,
  )
}

/** The toasts' place, bottom right (full width on a phone); F8 moves the focus there. */
export function Toaster() {
  const list = useRaised()
  return (
    <Toast.Provider swipeDirection="right">
      {list.map((toast) => (
        <Toast.Root
          key={toast.id}
          type={toast.ok ? 'background' : 'foreground'}
          duration={toast.ok ? 4000 : 8000}
          onOpenChange={(open) => (open ? undefined : changed(raised.filter((entry) => entry.id !== toast.id)))}
          data-outcome={toast.ok ? 'ok' : 'refused'}
          className={`flex items-start gap-2 rounded-lg border bg-raised p-3 text-sm shadow-lg ${toast.ok ? 'border-line' : 'border-danger'}`}
        >
          <Toast.Description className={`flex-1 ${toast.ok ? 'text-fg' : 'text-danger'}`}>{toast.text}</Toast.Description>
          <Toast.Close aria-label="dismiss" className="rounded p-0.5 text-muted hover:text-fg">
            <X aria-hidden className="size-4" />
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport className="fixed right-0 bottom-0 z-50 flex w-full flex-col gap-2 p-4 sm:max-w-sm" />
    </Toast.Provider>
  )
}
