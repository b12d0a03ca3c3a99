import { Text } from 'ink'
import { useDialogKeys } from './KeyRoot.js'

/** While a dialog's choices load, or when they could not be: esc (or any key after a failure) goes back. */
export function Waiting({ error, onCancel }: { error?: string | undefined; onCancel: () => void }) {
  useDialogKeys((_input, key) => {
    if (key.escape || error !== undefined) onCancel()
  })
  return error === undefined ? <Text color="gray">loading…</Text> : <Text color="red">{error}</Text>
}
