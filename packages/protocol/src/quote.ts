/** How many characters of a request value an error message repeats. */
export const QUOTED_PREFIX = 64

function cut(text: string): string {
  // A cut between the halves of a surrogate pair would leave half a character.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(QUOTED_PREFIX - 1)) ? QUOTED_PREFIX - 1 : QUOTED_PREFIX
  return `${text.slice(0, end)}…`
}

/**
 * A request value as an error message quotes it: `"value"`, or for a long one its prefix
 * and length, `"aaaa…" (1700000 characters)`, so an answer never echoes a whole request.
 */
export function quote(value: unknown): string {
  const text = String(value)
  return text.length <= QUOTED_PREFIX ? `"${text}"` : `"${cut(text)}" (${text.length} characters)`
}

/** The same bound for a value a message shows without quotes (an id, a path). */
export function excerpt(value: unknown): string {
  const text = String(value)
  return text.length <= QUOTED_PREFIX ? text : `${cut(text)} (${text.length} characters)`
}
