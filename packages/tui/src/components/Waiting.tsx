import { Text, useInput } from 'ink'

/** While a dialog's choices load, or when they could not be: esc (or any key after a failure) goes back. */
export function Waiting({ error, onCancel }: { error?: string | undefined; onCancel: () => void }) {
  useInput((_input, key) => {
    if (key.escape || error !== undefined) onCancel()
  })
  return error === undefined ? <Text color="gray">loading…</Text> : <Text color="red">{error}</Text>
}
