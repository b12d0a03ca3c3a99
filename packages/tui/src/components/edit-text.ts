import type { Key } from 'ink'

/**
 * A text field's value after one key: typed text appended, backspace and Ctrl-U erase;
 * undefined when the key is not an edit. The form's own key handler applies it, so
 * keys typed right after a field takes the focus are never lost to a field's handler
 * that is still being registered (ink registers handlers after the render).
 */
export function editText(value: string, input: string, key: Key): string | undefined {
  if (key.backspace || key.delete) return value.slice(0, -1)
  if (key.ctrl && input === 'u') return ''
  if (key.ctrl || key.meta || key.escape || key.return || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return undefined
  return input === '' ? undefined : value + input
}
