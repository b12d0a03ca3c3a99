import { Box, Text, useInput } from 'ink'
import TextInput from 'ink-text-input'

export interface FilterProps {
  value: string
  onChange: (value: string) => void
  /** enter keeps the filter, esc clears it. */
  onDone: (keep: boolean) => void
}

/** `/`: the filter, applied as it is typed. */
export function Filter({ value, onChange, onDone }: FilterProps) {
  useInput((_input, key) => {
    if (key.escape) onDone(false)
  })
  return (
    <Box flexDirection="column">
      <Box>
        <Text color="cyan">/ </Text>
        <TextInput value={value} onChange={onChange} onSubmit={() => onDone(true)} />
      </Box>
      <Text color="gray">words of a title, project, branch, program or state; enter keeps, esc clears</Text>
    </Box>
  )
}
