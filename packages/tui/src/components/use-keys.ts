import { useInput, type Key } from 'ink'

export type KeyHandler = (input: string, key: Key) => void

const PLAIN: Partial<Record<string, Partial<Key>>> = { '\r': { return: true }, '\n': { return: true }, '\t': { tab: true }, '\x7f': { backspace: true }, '\b': { backspace: true } }

/**
 * One read can hold several keys (a paste, a fast typist, keys sent by a program): ink
 * reports them as one input. Plain characters are split into keys of their own, so
 * "jj" moves twice and "text⏎" types the text and then presses enter.
 */
export function keypresses(input: string, key: Key): Array<[string, Key]> {
  if (input.length <= 1 || key.ctrl || key.meta || key.escape) return [[input, key]]
  return [...input].map((char): [string, Key] => {
    const special = PLAIN[char]
    return special ? ['', { ...key, ...special }] : [char, key]
  })
}

/** `useInput`, one call per key. */
export function useKeys(handler: KeyHandler): void {
  useInput((input, key) => {
    for (const [each, pressed] of keypresses(input, key)) handler(each, pressed)
  })
}
