import { useSyncExternalStore } from 'react'

/**
 * Whether the new-session form is asked for: the header's button and the `n` key open it,
 * whatever renders the form (App's NewSessionHost) reads it and closes it.
 */
let open = false
const listeners = new Set<() => void>()

function set(next: boolean): void {
  if (next === open) return
  open = next
  for (const listener of listeners) listener()
}

export const openNewSession = (): void => set(true)
export const closeNewSession = (): void => set(false)

export function useNewSessionOpen(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => open,
  )
}
