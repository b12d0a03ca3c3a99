import { Text } from 'ink'
import { useKeys } from './useKeys.js'

/** While a dialog's choices load, or when they could not be: esc (or any key after a failure) goes back. */
export function Waiting({ error, onCancel }: { error?: string | undefined; onCancel: () => void }) {
  useKeys((_input, key) => {
    if (key.escape || error !== undefined) onCancel()
  })
  return error === undefined ? <Text color="gray">loading…</Text> : <Text color="red">{error}</Text>
}
