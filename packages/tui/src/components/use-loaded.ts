import { useEffect, useState } from 'react'
import { refusal } from '../refusal.js'

export type Loaded<T> = { value: T } | { error: string } | undefined

/** What `load` resolves with, once; its failure as the daemon's message. */
export function useLoaded<T>(load: () => Promise<T>): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>(undefined)
  useEffect(() => {
    let current = true
    load().then(
      (value) => current && setLoaded({ value }),
      (error: unknown) => current && setLoaded({ error: refusal(error) }),
    )
    return () => {
      current = false
    }
    // Loaded once per dialog: the dialog is remade to load again.
  }, [])
  return loaded
}
