import { createContext, useContext, useLayoutEffect, useRef, useState, type ReactNode } from 'react'
import { useKeys, type KeyHandler } from './use-keys.js'

type Handlers = Array<{ current: KeyHandler }>

const DialogHandlers = createContext<Handlers | undefined>(undefined)

/**
 * The screen's one input handler, mounted for as long as the screen: each key goes to
 * the dialog shown last, else to `main`. One key reaches one handler, so the key that
 * closes a dialog never reaches the list behind it too.
 */
export function KeyRoot({ main, children }: { main?: KeyHandler; children: ReactNode }) {
  const [handlers] = useState<Handlers>(() => [])
  useKeys((input, key) => (handlers.at(-1)?.current ?? main)?.(input, key))
  return <DialogHandlers.Provider value={handlers}>{children}</DialogHandlers.Provider>
}

/**
 * A dialog's keys, from the moment it is drawn until it goes. Taken in a layout effect,
 * which runs as the dialog is committed, before it shows: a key pressed as soon as the
 * dialog shows is never lost (ink's `useInput` listens from a later effect).
 */
export function useDialogKeys(handler: KeyHandler): void {
  const handlers = useContext(DialogHandlers)
  if (handlers === undefined) throw new Error('useDialogKeys needs a KeyRoot around it')
  const latest = useRef(handler)
  useLayoutEffect(() => {
    latest.current = handler
  })
  useLayoutEffect(() => {
    handlers.push(latest)
    return () => void handlers.splice(handlers.indexOf(latest), 1)
  }, [handlers])
}
