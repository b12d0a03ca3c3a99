import { useSyncExternalStore } from 'react'

/**
 * Whether the new-session dialog is open: one flag any part of the page can set (the
 * header's button, the `n` key, the `#/new` address) and the dialog at the root reads.
 */
let open = false
const listeners = new Set<() => void>()

function setOpen(next: boolean): void {
  if (open === next) return
  open = next
  for (const listener of listeners) listener()
}

export const openNewSession = (): void => setOpen(true)
export const closeNewSession = (): void => setOpen(false)

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function useNewSessionOpen(): boolean {
  return useSyncExternalStore(subscribe, () => open)
}
