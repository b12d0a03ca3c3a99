import { Box, Text } from 'ink'
import { editText } from './edit-text.js'
import { TextField } from './Form.js'
import { useRefState } from './use-ref-state.js'
import { useDialogKeys } from './KeyRoot.js'

export interface FilterProps {
  value: string
  onChange: (value: string) => void
  /** enter keeps the filter, esc clears it. */
  onDone: (keep: boolean) => void
}

/** `/`: the filter, applied as it is typed. */
export function Filter({ value, onChange, onDone }: FilterProps) {
  const [text, setText] = useRefState(value)
  useDialogKeys((input, key) => {
    if (key.escape || key.return) return onDone(key.return)
    const edited = editText(text(), input, key)
    if (edited === undefined) return
    setText(edited)
    onChange(edited)
  })
  return (
    <Box flexDirection="column">
      <Box>
        <Text color="cyan">/ </Text>
        <TextField value={text()} placeholder="" focused />
      </Box>
      <Text color="gray">words of a title, project, branch, program or state; enter keeps, esc clears</Text>
    </Box>
  )
}
