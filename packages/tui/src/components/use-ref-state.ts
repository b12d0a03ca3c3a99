import { useReducer, useRef } from 'react'

/**
 * State that key handlers read through a ref: keys that arrive before the screen
 * re-rendered (a fast typist, a paste, a busy machine) each see the previous key's result.
 */
export function useRefState<T>(initial: T): [() => T, (next: T | ((before: T) => T)) => void] {
  const ref = useRef(initial)
  const [, redraw] = useReducer((count: number) => count + 1, 0)
  const set = (next: T | ((before: T) => T)) => {
    ref.current = next instanceof Function ? next(ref.current) : next
    redraw()
  }
  return [() => ref.current, set]
}
